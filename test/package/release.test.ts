/**
 * The release path as the README gives it, run as written: in a clean copy
 * of the repository (its node_modules linked, standing in for `npm ci`),
 * `scripts/release.sh --dry-run`, which runs the README's build command
 * `npm run pack:release` and then `npm publish --dry-run` on the tarball;
 * then a new project runs the README's install commands on that tarball
 * (the npm cache serves the registry packages) and ends with the README's
 * sample package.json, type-checks the README's quick start under the
 * README's tsconfig.json and serves it. A real publication refuses to start
 * from this copy, and pack:release refuses a placeholder URL.
 *
 * One build and one install, no TypeScript matrix: test/package/pack.test.ts
 * covers every project kind.
 */
import t from 'tap'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { allBlocks, type Block, isShell, isTypeScript } from '../docs/markdown.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { cleanCopy, run, show } from '../helpers/package-project.js'
import { cleanEnv, freePort, startServerProcess } from '../helpers/server-process.js'

// a type check and a build of lib/, an install from the npm cache, one tsc: minutes on a busy machine
t.setTimeout(1_200_000)

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
const TARBALL = `${pkg.name}-${pkg.version}.tgz`
const readme = allBlocks().filter((block) => block.file === 'README.md')
const runHere = readme.filter((block) => isShell(block) && block.note === '<!-- docs-test: run by test/package/release.test.ts -->')
const find = (what: string, test: (block: Block) => boolean): Block => {
  const block = runHere.find(test) ?? readme.find(test)
  if (block === undefined) throw new Error(`README.md has no ${what} block`)
  return block
}
const buildBlock = find('build', (block) => block.code.includes('pack:release'))
const consumerBlock = find('consumer install', (block) => block.code.includes('npm install ./vendor/'))
const releaseBlock = find('release', (block) => block.code.includes('scripts/release.sh'))
const samplePackage = JSON.parse(find('sample package.json', (block) => block.language === 'json' && block.code.includes('"my-mcp-server"')).code)
const sampleTsconfig = JSON.parse(find('tsconfig.json', (block) => block.language === 'json' && block.code.includes('"compilerOptions"')).code)
const quickStart = find('quick start', (block) => isTypeScript(block) && block.code.includes('app.listen')).code

const work = mkdtempSync(join(tmpdir(), 'fmc-release-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))
const clone = join(work, 'clone')
const tarball = join(clone, 'release', TARBALL)
const app = join(work, 'app')
/** No registry to publish to, should a guard fail: the real run must stop before npm publish. */
const NO_REGISTRY = { npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0', npm_config_fetch_timeout: '3000' }

t.test('the README runs these blocks through this test, and they name this version\'s tarball', async (t) => {
  t.equal(runHere.length, 3, 'build, install and release blocks')
  t.strictSame(buildBlock.code.trim().split('\n'), ['npm ci', 'npm run pack:release'], 'the build: npm ci (here a linked node_modules), then pack:release')
  t.ok(consumerBlock.code.includes(`/release/${TARBALL} vendor/`) && consumerBlock.code.includes(`./vendor/${TARBALL}`), `the install names ${TARBALL}`)
  t.equal(samplePackage.dependencies?.[pkg.name], `file:vendor/${TARBALL}`, 'the sample package.json points at the same file')
  t.equal(releaseBlock.code.trim(), 'scripts/release.sh --dry-run')
})

t.test('scripts/release.sh --dry-run: the checked tarball, then npm publish --dry-run on it', async (t) => {
  cleanCopy(clone)
  const r = await run('bash', ['-euo', 'pipefail', '-c', releaseBlock.code], clone)
  const output = r.stdout + r.stderr
  t.equal(r.code, 0, 'succeeds', { output: show(r) })
  t.match(r.stdout, /▶ package\.json\n.*no placeholder, publishConfig \{"access":"public","provenance":true\}/, 'package.json checked')
  t.match(r.stdout, /▶ type check/, 'type-checked')
  t.equal(output.match(/^> tsc -b /gm)?.length, 1, 'built once')
  t.match(r.stdout, /files, every export target present, nothing else/, 'the packed file list checked')
  t.ok(existsSync(tarball), `release/${TARBALL} written`)
  t.match(output, /▶ npm publish --dry-run \.\/release\//, 'publishes that file, dry')
  t.match(output, new RegExp(`\\+ ${pkg.name}@${pkg.version.replace(/\./g, '\\.')}`), 'npm publish --dry-run accepts it')
  t.match(output, /with tag latest and public access \(dry-run\)/, 'public access from publishConfig')
  t.match(r.stderr, /a real publication would stop here: not a git checkout/, 'says what a real publication would refuse')
  t.match(r.stderr, /no repository\.url/)
  t.match(r.stdout, /nothing was published/)
})

t.test('a real publication refuses to start from this copy', async (t) => {
  if (!existsSync(clone)) return t.fail('no copy')
  const r = await run('bash', ['scripts/release.sh', '--yes'], clone, false, NO_REGISTRY)
  t.equal(r.code, 1, 'fails', { output: show(r) })
  t.match(r.stderr, /release: not a git checkout/)
  t.match(r.stderr, /CHANGELOG\.md has no dated section/)
  t.match(r.stderr, /no repository\.url/)
  t.notMatch(r.stdout, /▶ package\.json/, 'before anything is built')
})

t.test('pack:release refuses a placeholder URL and a missing publishConfig before building', async (t) => {
  const dir = join(work, 'placeholder')
  mkdirSync(join(dir, 'scripts'), { recursive: true })
  cpSync(join(REPO_ROOT, 'scripts', 'pack-release.mjs'), join(dir, 'scripts', 'pack-release.mjs'))
  const { publishConfig: _, ...withoutPublishConfig } = pkg
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...withoutPublishConfig, homepage: 'https://example.invalid/OWNER/x#readme' }))
  const r = await run(process.execPath, ['scripts/pack-release.mjs'], dir)
  t.equal(r.code, 1, 'fails', { output: show(r) })
  t.match(r.stderr, /package\.json "homepage" holds a placeholder/)
  t.match(r.stderr, /publishConfig\.access must be "public"/)
  t.match(r.stderr, /publishConfig\.provenance must be true/)
  t.notMatch(r.stdout, /▶ type check/, 'nothing built')
})

/** `^1.2.3` / `~1.2.3` (the forms the README uses) against an installed version. */
function satisfies (version: string, range: string): boolean {
  const [major, minor, patch] = version.split('.').map(Number) as [number, number, number]
  const [lowMajor = 0, lowMinor = 0, lowPatch = 0] = range.slice(1).split('.').map(Number)
  const atLeast = major !== lowMajor ? major > lowMajor : minor !== lowMinor ? minor > lowMinor : patch >= lowPatch
  if (range.startsWith('~')) return atLeast && major === lowMajor && minor === lowMinor
  if (range.startsWith('^')) return atLeast && major === lowMajor && (lowMajor > 0 || minor === lowMinor)
  return false
}

t.test('a new project runs the README\'s install commands on the tarball', async (t) => {
  if (!existsSync(tarball)) return t.fail('no tarball')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-mcp-server', private: true }))
  const commands = consumerBlock.code.replaceAll('/path/to/clone', clone)
  const r = await run('bash', ['-euo', 'pipefail', '-c', commands], app, false,
    { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false', npm_config_loglevel: 'error' })
  t.equal(r.code, 0, 'installs', { output: show(r) })
  if (r.code !== 0) return
  const written = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'))
  for (const field of ['dependencies', 'devDependencies'] as const) {
    t.strictSame(Object.keys(written[field] ?? {}).sort(), Object.keys(samplePackage[field]).sort(), `the README's sample ${field}`)
    for (const [name, range] of Object.entries(samplePackage[field] as Record<string, string>)) {
      if (name === pkg.name) {
        t.equal(written[field][name], range, `${name}: ${range}`)
        continue
      }
      const version = JSON.parse(readFileSync(join(app, 'node_modules', name, 'package.json'), 'utf8')).version
      t.ok(satisfies(version, range), `${name} ${version} installed, within the sample's ${range}`)
    }
  }
  t.equal(JSON.parse(readFileSync(join(app, 'node_modules', pkg.name, 'package.json'), 'utf8')).version, pkg.version, 'the tarball\'s version')
})

t.test('the README\'s quick start type-checks under its tsconfig.json and answers', async (t) => {
  if (!existsSync(join(app, 'node_modules', pkg.name))) return t.fail('not installed')
  const written = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8'))
  writeFileSync(join(app, 'package.json'), JSON.stringify({ ...written, type: samplePackage.type, scripts: samplePackage.scripts }, null, 2))
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify(sampleTsconfig))
  const port = await freePort()
  t.match(quickStart, /port: 3000/)
  writeFileSync(join(app, 'server.ts'), quickStart.replace('port: 3000', `port: ${port}`))
  const typecheck = await run('npm', ['run', 'typecheck'], app, true)
  t.equal(typecheck.code, 0, 'npm run typecheck (tsc --noEmit)', { output: show(typecheck) })
  // what `npm start` runs (tsx server.ts), started directly so stopping it stops the server
  const server = await startServerProcess({
    name: 'the quick start',
    command: process.execPath,
    args: ['--import', 'tsx', 'server.ts'],
    cwd: app,
    env: cleanEnv(),
    readyFromOutput: (output) => /Server listening at/.test(output) ? true : undefined
  })
  t.teardown(server.stop)
  const reply = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } })
  })
  t.equal(reply.status, 200)
  const body = await reply.json() as { result?: { structuredContent?: unknown } }
  t.strictSame(body.result?.structuredContent, { sum: 5 }, 'the answer the README shows')
})
