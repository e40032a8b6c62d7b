/**
 * The suite's reporter (scripts/tap-summary.mjs, .taprc `reporter`) and the
 * CI totals line built on it (.ci/run): fed a real tap stream with a failing
 * assertion inside a subtest (test/fixtures/tap-summary/failing.tap, from
 * `tap --reporter=tap`), it prints one line per file and the failure in
 * full, keeps the raw TAP byte for byte, and counts assertions as tap does.
 */
import t from 'tap'
import { execFile } from 'node:child_process'
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../helpers/paths.js'

interface Counts { pass: number, fail: number, skip: number, todo: number }
interface Reporter extends NodeJS.ReadWriteStream { reportFile: string }
interface TapSummaryModule {
  default: new (options?: { reportFile?: string }) => Reporter
  totalsLine: (text: string) => string
  countAssertions: (text: string) => Counts
}

const SCRIPT = join(REPO_ROOT, 'scripts', 'tap-summary.mjs')
// a variable specifier: the script is plain JavaScript run by tap itself, with no declarations
const summary = await import(pathToFileURL(SCRIPT).href) as TapSummaryModule
const failing = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'tap-summary', 'failing.tap'), 'utf8')

const work = mkdtempSync(join(tmpdir(), 'fmc-tap-summary-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

/** Runs the reporter over `tap` in small chunks (lines split across writes), giving what it printed. */
async function report (tap: string, reportFile: string): Promise<string> {
  const TapSummary = summary.default
  const reporter = new TapSummary({ reportFile })
  let out = ''
  reporter.on('data', (chunk: Buffer) => { out += chunk.toString() })
  const done = new Promise((resolve) => reporter.on('end', resolve))
  for (let i = 0; i < tap.length; i += 7) reporter.write(tap.slice(i, i + 7))
  reporter.end()
  await done
  // the raw file is closed just before the stream ends
  await new Promise((resolve) => setImmediate(resolve))
  return out
}

t.test('one line per file; a failing file shows its failing assertion in full', async (t) => {
  const raw = join(work, 'nested', 'report.tap')
  const out = await report(failing, raw)
  const lines = out.split('\n')
  t.match(lines[0], /^not ok\s+0\.2s {2}test\/a\.test\.ts {2}\(4 assertions, 1 skipped, 1 failed\)$/, 'the failing file, its time and counts')
  t.ok(lines.includes('    not ok group › inner fails'), 'the failing assertion, named with its subtest path')
  t.ok(lines.includes('          -2') && lines.includes('          +1'), 'with its diff')
  t.ok(lines.some((line) => line.includes("t.equal(1 as number, 2, 'inner fails')")), 'and its source')
  t.ok(lines.includes('    exitCode: 1'), "the file's exit code")
  t.notOk(lines.some((line) => /^\s*(not )?ok\b.*inner ok/.test(line)), 'no passing assertion is listed')
  t.notOk(lines.some((line) => /not ok group$/.test(line)), 'the subtest that failed through it is not repeated')
  t.notOk(out.includes('--import') || out.includes('command:'), 'how tap spawned the file is left out')
  t.ok(lines.some((line) => /^ok\s+0\.0s {2}test\/b\.test\.ts {2}\(1 assertion\)$/.test(line)), 'the passing file, one line')
  t.ok(lines.includes('2 files: 1 ok, 1 not ok · assertions: 4 passed, 1 failed, 1 skipped, 0 todo · 11.3s'), 'the totals')
  t.ok(lines.includes('not ok test/a.test.ts'), 'the failing files again at the end')
  t.equal(readFileSync(raw, 'utf8'), failing, 'the raw TAP is kept byte for byte')
})

t.test('a subtest failing without a failing assertion inside is shown itself', async (t) => {
  const tap = [
    'TAP version 14',
    '1..1',
    '# Subtest: test/c.test.ts',
    '    # Subtest: never ends',
    '        ok 1 - first',
    '        1..1',
    '    not ok 1 - never ends # time=5ms',
    '      ---',
    '      message: test unfinished',
    '      ...',
    '    1..1',
    'not ok 1 - test/c.test.ts # time=9ms',
    ''
  ].join('\n')
  const out = await report(tap, join(work, 'c.tap'))
  t.match(out, /^not ok\s+0\.0s {2}test\/c\.test\.ts {2}\(1 assertion, 0 failed\)\n {4}not ok never ends\n {8}message: test unfinished\n/)
})

t.test('assertion totals: tap\'s own, or counted; an unfinished run is a failure', async (t) => {
  t.equal(summary.totalsLine(failing), '4 passed, 1 failed', "tap's totals line")
  const counted = failing.replace(/^# \{ total.*\n/m, '')
  t.strictSame(summary.countAssertions(counted), { pass: 4, fail: 1, skip: 1, todo: 0 }, 'counted like tap: leaves only, skips apart')
  t.equal(summary.totalsLine(counted), '4 passed, 1 failed', 'counted when tap printed no totals')
  const passing = 'TAP version 14\n1..1\n# Subtest: test/b.test.ts\n    ok 1 - fine\n    1..1\nok 1 - test/b.test.ts\n'
  t.equal(summary.totalsLine(passing), '1 passed, 0 failed')
  t.equal(summary.totalsLine(passing.replace('1..1\n#', '#').replace(/ok 1 - test.*\n/, '')), '1 passed, 1 failed', 'no plan: the run stopped early')
  t.equal(summary.totalsLine(passing + 'Bail out! redis-server not found\n'), '1 passed, 1 failed', 'a bail-out')
})

const run = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number, stdout: string }> =>
  new Promise((resolve) => {
    execFile(command, args, { env, timeout: 60_000 }, (error, stdout) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout })
    })
  })

t.test('node scripts/tap-summary.mjs --totals: the line .ci/run ends with', async (t) => {
  const file = join(work, 'totals.tap')
  writeFileSync(file, failing)
  t.equal((await run(process.execPath, [SCRIPT, '--totals', file])).stdout, '4 passed, 1 failed\n')
  t.equal((await run(process.execPath, [SCRIPT, '--totals', join(work, 'missing.tap')])).stdout, '0 passed, 1 failed\n', 'no report: tap never ran')
})

t.test('as a filter (tap runs a reporter it finds executable that way): raw TAP in, the summary out', async (t) => {
  const out = await new Promise<string>((resolve) => {
    const child = execFile(process.execPath, [SCRIPT], { cwd: work, env: { ...process.env, TAP_REPORT_FILE: join(work, 'filter.tap') } }, (_error, stdout) => resolve(stdout))
    child.stdin?.end(failing)
  })
  t.match(out, /^not ok\s+0\.2s {2}test\/a\.test\.ts .*\n {4}not ok group › inner fails\n/)
  t.equal(readFileSync(join(work, 'filter.tap'), 'utf8'), failing, 'the raw TAP kept')
})

t.test('.ci/run ends with "N passed, N failed" whatever stops the run', async (t) => {
  // a copy of .ci/run and the script beside a fake npm, so no real report is touched
  const repo = join(work, 'ci')
  mkdirSync(join(repo, '.ci'), { recursive: true })
  mkdirSync(join(repo, 'scripts'))
  mkdirSync(join(repo, 'bin'))
  cpSync(join(REPO_ROOT, '.ci', 'run'), join(repo, '.ci', 'run'))
  cpSync(SCRIPT, join(repo, 'scripts', 'tap-summary.mjs'))
  writeFileSync(join(repo, 'failing.tap'), failing)
  // FAKE: "ci-fails", "early" (npm test fails before tap), "tap-fails", "passes"
  writeFileSync(join(repo, 'bin', 'npm'), `#!/usr/bin/env bash
if [ "$1" = ci ]; then [ "$FAKE" = ci-fails ] && exit 1; exit 0; fi
case "$FAKE" in
  early) echo "error TS2322 somewhere"; exit 2 ;;
  tap-fails) mkdir -p .tap; cp failing.tap .tap/report.tap; exit 1 ;;
  passes) mkdir -p .tap; printf 'TAP version 14\\n1..1\\nok 1 - x\\n# { total: 3, pass: 3 }\\n' > .tap/report.tap; exit 0 ;;
esac
`)
  chmodSync(join(repo, 'bin', 'npm'), 0o755)
  const ci = async (fake: string): Promise<{ code: number, last: string }> => {
    const r = await run('bash', [join(repo, '.ci', 'run')], { ...process.env, FAKE: fake, PATH: `${join(repo, 'bin')}:${process.env.PATH ?? ''}` })
    return { code: r.code, last: r.stdout.trimEnd().split('\n').at(-1) ?? '' }
  }
  t.strictSame(await ci('passes'), { code: 0, last: '3 passed, 0 failed' }, 'a green run')
  t.strictSame(await ci('tap-fails'), { code: 1, last: '4 passed, 1 failed' }, "a failing assertion: tap's totals")
  t.ok(existsSync(join(repo, '.tap', 'report.tap')), 'a report was left behind')
  t.strictSame(await ci('early'), { code: 2, last: '0 passed, 1 failed' }, 'a type error before tap: one failure, not the old report')
  t.strictSame(await ci('ci-fails'), { code: 1, last: '0 passed, 1 failed' }, 'npm ci failing')
})
