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
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { REPO_DIR } from './launch.js'
import { COLD_TOOL_NAMES } from './cold-start-catalog.js'
import { coldRequestOf } from './cold-request.js'

const STEPS = ['import', 'define', 'ready', 'first'] as const

/** The child's script: `entry` is the package's file URL, or null for the floor. */
function script (entry: string | null, typebox: string, era: string): string {
  const { headers, body } = coldRequestOf('legacy')
  return `
import { spawn } from 'node:child_process'
const dump = (name) => new Promise((resolve) => spawn('callgrind_control', ['-d', name, String(process.pid)], { stdio: 'ignore' }).on('exit', resolve))
const names = ${JSON.stringify(COLD_TOOL_NAMES)}
const answer = (name, args) => ({ content: [{ type: 'text', text: name + ': ' + String(args.query) }] })
const Fastify = (await import('fastify')).default
// the first dumps compile what dumping runs: not counted in a step
await dump('start'); await dump('warm')
let Type
const input = () => Type.Object({ query: Type.String({ minLength: 1 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) })
let app
if (${JSON.stringify(entry)} === null) {
  Type = (await import('@sinclair/typebox')).Type
  const { TypeCompiler } = await import('@sinclair/typebox/compiler')
  await dump('import')
  const checks = new Map(names.map((name) => [name, TypeCompiler.Compile(input())]))
  await dump('define')
  app = Fastify()
  app.post('/mcp', (request, reply) => {
    const params = request.body?.params
    const check = checks.get(params?.name ?? '')
    if (check === undefined || !check.Check(params?.arguments)) return reply.code(400).send({ error: 'invalid arguments' })
    reply.send({ jsonrpc: '2.0', id: request.body.id, result: answer(params.name, params.arguments) })
  })
} else {
  const { default: mcpCapabilities, defineTools } = await import(${JSON.stringify(entry)})
  Type = (await import(${JSON.stringify(typebox)})).Type
  await dump('import')
  const tools = defineTools(Object.fromEntries(names.map((name) => [name, { title: name, description: 'The ' + name + ' tool.', input: input(), handler: (args) => answer(name, args) }])))
  await dump('define')
  app = Fastify()
  app.register(mcpCapabilities, { server: tools, serverInfo: { name: 'cold-instructions', version: '1.0.0' }, era: ${JSON.stringify(era)}, path: '/mcp' })
}
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
const contenders: Array<{ label: string, entry: string | null, cwd: string }> = [
  { label: 'floor', entry: null, cwd: REPO_DIR },
  { label: 'plugin', entry: pathToFileURL(join(REPO_DIR, 'dist', 'lib', 'index.js')).href, cwd: REPO_DIR }
]
if (args.before !== undefined) contenders.push({ label: 'before', entry: pathToFileURL(join(args.before, 'dist', 'lib', 'index.js')).href, cwd: args.before })
for (const { entry } of contenders) {
  if (entry !== null && !existsSync(new URL(entry))) throw new Error(`${entry} is missing: run npm run build there`)
}

const millions = (n: number): string => (n / 1e6).toFixed(1)
console.log(`Main-thread instructions per step, millions (without the collector in parentheses); plugin era ${args.era}`)
for (const { label, entry, cwd } of contenders) {
  const typebox = entry === null ? '@sinclair/typebox' : existsSync(new URL('typebox/index.js', entry)) ? new URL('typebox/index.js', entry).href : '@sinclair/typebox'
  const counts = countsOf(entry, typebox, args.era, cwd)
  const steps = STEPS.map((step) => {
    const count = counts.get(step)
    return count === undefined ? `${step} ?` : `${step} ${millions(count.total)} (${millions(count.total - count.gc)})`
  })
  console.log(`${label.padEnd(7)} ${steps.join('  ')}`)
}
