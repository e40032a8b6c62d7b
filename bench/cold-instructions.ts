/**
 * `npx tsx bench/cold-instructions.ts`: the steps of bench/cold-phases.ts
 * (import, define, ready, first) counted in instructions of the main thread
 * under `valgrind --tool=callgrind`, instead of timed. Each step ends with a
 * callgrind dump (`callgrind_control -d`, awaited while the event loop is
 * idle), so a step's count is its own. The counts do not move with the
 * machine's load: a run repeats to a few tenths of a percent, except where a
 * scavenge falls, hence the column without the collector
 * (`Heap::CollectGarbage`, inclusive). A start takes about 40 s under
 * callgrind. Needs valgrind (callgrind_control, callgrind_annotate). Never
 * part of `npm test`.
 *
 *   npx tsx bench/cold-instructions.ts                                  # era dual, the floor and this build
 *   npx tsx bench/cold-instructions.ts --era legacy --before /path/to/other/checkout
 *
 * The contenders are those of bench/cold-phases.ts: `floor` (Fastify and
 * `@sinclair/typebox` with its compiler, the ten schemas compiled, one route),
 * `plugin` (this checkout's dist/lib/index.js: `npm run build` first) and,
 * with `--before`, another checkout's build. The request is a legacy
 * `tools/call` (the plugin is registered with the era given).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { coldContenders, coldSteps, typeboxOf } from './cold-steps.js'
import { coldRequestOf } from './cold-request.js'

const STEPS = ['import', 'define', 'ready', 'first'] as const

/** The child's script: `entry` is the package's file URL, or null for the floor. */
function script (entry: string | null, typebox: string, era: string): string {
  const { headers, body } = coldRequestOf('legacy')
  return `
import { spawn } from 'node:child_process'
const dump = (name) => new Promise((resolve) => spawn('callgrind_control', ['-d', name, String(process.pid)], { stdio: 'ignore' }).on('exit', resolve))
const Fastify = (await import('fastify')).default
// the first dumps compile what dumping runs: not counted in a step
await dump('start'); await dump('warm')
${coldSteps(entry, typebox, era, (step) => `await dump('${step}')`)}
await app.ready()
await dump('ready')
const first = await app.inject({ method: 'POST', url: '/mcp', headers: ${JSON.stringify(headers)}, payload: ${JSON.stringify(body)} })
await dump('first')
if (first.statusCode !== 200) throw new Error('wrong answer: ' + first.statusCode + ' ' + first.body)
await app.close()
`
}

/** A step's main-thread instructions, and the collector's part of them. */
interface Count { total: number, gc: number }

function countsOf (entry: string | null, typebox: string, era: string, cwd: string): Map<string, Count> {
  const dir = mkdtempSync(join(tmpdir(), 'cold-instructions-'))
  try {
    execFileSync('valgrind', ['--tool=callgrind', '--separate-threads=yes', `--callgrind-out-file=${join(dir, 'cg.out')}`,
      process.execPath, '--input-type=module', '-e', script(entry, typebox, era)], { cwd, stdio: 'ignore', env: { ...process.env, NODE_OPTIONS: '' } })
    const counts = new Map<string, Count>()
    // cg.out.<dump>-01: the main thread's part of each dump
    for (const file of readdirSync(dir).filter((name) => /^cg\.out\.\d+-01$/.test(name))) {
      const path = join(dir, file)
      const text = readFileSync(path, 'utf8')
      const step = /^desc: Trigger: .*dump (\w+)$/m.exec(text)?.[1]
      const total = /^(?:totals|summary): (\d+)/m.exec(text)?.[1]
      if (step === undefined || total === undefined) continue
      const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
      const gc = /^\s*([\d,]+) .*Heap::CollectGarbage/m.exec(annotated)?.[1]
      counts.set(step, { total: Number(total), gc: gc === undefined ? 0 : Number(gc.replaceAll(',', '')) })
    }
    return counts
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const { values: args } = parseArgs({ options: { era: { type: 'string', default: 'dual' }, before: { type: 'string' } } })
const contenders = coldContenders(args.before)

const millions = (n: number): string => (n / 1e6).toFixed(1)
console.log(`Main-thread instructions per step, millions (without the collector in parentheses); plugin era ${args.era}`)
for (const { label, entry, cwd } of contenders) {
  const counts = countsOf(entry, typeboxOf(entry), args.era, cwd)
  const steps = STEPS.map((step) => {
    const count = counts.get(step)
    return count === undefined ? `${step} ?` : `${step} ${millions(count.total)} (${millions(count.total - count.gc)})`
  })
  console.log(`${label.padEnd(7)} ${steps.join('  ')}`)
}
