/**
 * Instructions per request, the plugin against the floors: each server
 * runs under `valgrind --tool=callgrind`, its instrumentation off while it
 * warms up and switched on (`callgrind_control -i on`) only for the counted
 * requests of each scenario. Unlike CPU time, instruction counts do not move
 * with the machine's load, so they show what a change to the request path
 * saves even on a busy machine (a run repeats within a few percent: when a
 * collection falls in the window varies, hence the column without the
 * collector and the compilers).
 *
 *   npm run bench:instructions
 *   npm run bench:instructions -- --scenarios tools/call,discover --requests 2000 --warm-up 10000
 *   npm run bench:instructions -- --server defined        # the TypeBox-defined tools against the floors
 *   npm run bench:instructions -- --floors bare           # the canned-bytes floor only
 *   npm run bench:instructions -- --top 30                # and where the main thread spends, by function (self)
 *   npm run bench:instructions -- --top 60 --inclusive    # the same with each function's callees counted in (what a call costs)
 *   npm run bench:instructions -- --isolated              # each scenario in a server of its own
 *
 * Needs valgrind (callgrind_control, callgrind_annotate). The counts are the
 * server's main thread only (`--separate-threads=yes`): the helper threads
 * run the concurrent collector and the optimising compiler, which the
 * floor's threads run too. The dumps stay under bench/results/instructions/.
 *
 * Two floors (`--floors`, both by default): bare answers canned bytes;
 * bare-tool, on the tools/call scenarios, also checks the arguments, runs
 * the tool and serialises its result, the work no endpoint avoids.
 *
 * By default every scenario is counted in one server process that has served
 * them all, as production traffic mixes requests: objects of many shapes
 * reach the request path, and what V8 compiled for one workload must serve
 * the others. `--isolated` counts each scenario in a fresh server that has
 * seen only it, the best case; the difference between the two runs is what
 * mixing costs.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { compileServers, launch, RESULTS_DIR, type RunningServer } from './launch.js'
import { cannedKey, partsOf, requestSequence, type Scenario, SCENARIOS, type ServerName } from './scenarios.js'
import type { AnswersMessage } from './servers/canned.js'
import { capture, differences, problemsWith, SpecSchemas, stableHeaders } from './validate.js'

const OUT_DIR = join(RESULTS_DIR, 'instructions')
/** Concurrent keep-alive connections, each sending its requests one after another. */
const CONNECTIONS = 4
/**
 * The collector and the compilers, as they show on the main thread: their
 * entry points' inclusive counts are set apart (they depend on when a
 * collection or an optimisation falls in the window more than on the request).
 */
const OUTSIDE_REQUEST = [
  /^v8::internal::Heap::CollectGarbage\(/,
  /^v8::internal::Heap::FinalizeIncrementalMarkingAtomically/,
  /^v8::internal::IncrementalMarkingJob::Task::RunInternal/,
  /^v8::internal::MinorGCJob::Task::RunInternal/,
  /^v8::internal::ScavengeJob::Task::RunInternal/,
  /^v8::internal::Runtime_CompileLazy/,
  /^v8::internal::Runtime_CompileOptimized/,
  /^v8::internal::Runtime_InstallBaselineCode/,
  /^v8::internal::Runtime_CompileBaseline/,
  /^v8::internal::Runtime_StackGuardWithGap/,
  /^v8::internal::Runtime_StackGuard\(/,
  /^v8::internal::OptimizingCompileDispatcher::InstallOptimizedFunctions/
]

/** A line of callgrind_annotate: `1,234 (5.6%)  file:function [object]`. */
const ANNOTATED = /^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:[^:\s]+:(?!:))?(.*?)(?: \[[^\]]*\])?$/

interface Counted { total: number, outside: number, file: string, byFunction?: Map<string, number> }

async function send (agent: Agent, port: number, scenario: Scenario): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: scenario.headers, agent }, (res) => {
      if (res.statusCode !== scenario.status) reject(new Error(`${scenario.name}: HTTP ${res.statusCode}`))
      res.resume()
      res.on('end', () => resolve())
    })
    req.on('error', reject)
    req.end(scenario.body)
  })
}

/** `count` requests of the scenario (a mix's parts in turn), over CONNECTIONS keep-alive connections. */
async function load (agent: Agent, port: number, scenario: Scenario, count: number): Promise<void> {
  const sequence = requestSequence(scenario)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < count) {
      const part = sequence[next % sequence.length] as Scenario
      next++
      await send(agent, port, part)
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, worker))
}

function control (pid: number, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(pid)], { stdio: 'ignore' })
}

/** Inclusive Ir per function of one callgrind dump, by name. */
function inclusive (file: string): Map<string, number> {
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  const out = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = ANNOTATED.exec(line)
    if (match === null) continue
    out.set(match[2] as string, (out.get(match[2] as string) ?? 0) + Number((match[1] as string).replaceAll(',', '')))
  }
  return out
}

/** The main thread's dump of one scenario: total Ir and the part outside the request (collector, compilers). */
function counted (dir: string, label: string): Counted {
  // dumps are named callgrind.out.<pid>.<n>-<thread>; the main thread is 01
  const file = readdirSync(dir).map((name) => join(dir, name)).find((path) => path.endsWith('-01') && readFileSync(path, 'utf8').includes(`desc: Trigger: dump ${label}\n`))
  if (file === undefined) throw new Error(`no main-thread dump for "${label}" in ${dir}`)
  const totals = /^totals: (\d+)/m.exec(readFileSync(file, 'utf8'))
  const total = Number(totals?.[1] ?? Number.NaN)
  let outside = 0
  for (const [name, ir] of inclusive(file)) {
    if (OUTSIDE_REQUEST.some((pattern) => pattern.test(name))) outside += ir
  }
  return { total, outside, file }
}

/**
 * Ir per function of a dump, self or with its callees (`inclusive`), the
 * JIT-compiled functions named from the perf map `--perf-basic-prof` wrote.
 */
function byFunction (file: string, pid: number, inclusive: boolean): Map<string, number> {
  let map: Array<{ start: number, end: number, name: string }> = []
  try {
    map = readFileSync(`/tmp/perf-${pid}.map`, 'utf8').split('\n').filter(Boolean).map((line) => {
      const [start, size, ...name] = line.split(' ')
      const from = Number.parseInt(start as string, 16)
      return { start: from, end: from + Number.parseInt(size as string, 16), name: name.join(' ') }
    }).sort((a, b) => a.start - b.start)
  } catch {}
  const name = (fn: string): string => {
    const match = /^0x([0-9a-f]+)$/.exec(fn)
    if (match === null || map.length === 0) return fn
    const address = Number.parseInt(match[1] as string, 16)
    let lo = 0
    let hi = map.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if ((map[mid] as { start: number }).start <= address) lo = mid
      else hi = mid - 1
    }
    const entry = map[lo] as { start: number, end: number, name: string }
    return entry.start <= address && address < entry.end ? entry.name : fn
  }
  const text = execFileSync('callgrind_annotate', [...(inclusive ? ['--inclusive=yes'] : []), '--threshold=100', file], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 })
  const counts = new Map<string, number>()
  for (const line of text.split('\n')) {
    const match = ANNOTATED.exec(line)
    if (match === null || match[2] === undefined || match[2] === '') continue
    if (/PROGRAM TOTALS/.test(match[2])) continue
    const key = name(match[2].trim())
    counts.set(key, (counts.get(key) ?? 0) + Number((match[1] as string).replaceAll(',', '')))
  }
  return counts
}

/** Where the server's main thread spends more than the floor's per request, function by function. */
function compare (name: string, floorName: string, ours: Map<string, number>, floor: Map<string, number>, requests: number, limit: number, inclusive: boolean): void {
  const rows = [...new Set([...ours.keys(), ...floor.keys()])]
    .map((fn) => ({ fn, a: (ours.get(fn) ?? 0) / requests, b: (floor.get(fn) ?? 0) / requests }))
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b))
  process.stdout.write(`  ${name.padStart(7)} ${floorName.padStart(9)} ${'diff'.padStart(7)}  function (largest differences, instructions per request, ${inclusive ? 'inclusive' : 'self'})\n`)
  for (const row of rows.slice(0, limit)) {
    process.stdout.write(`  ${row.a.toFixed(0).padStart(7)} ${row.b.toFixed(0).padStart(9)} ${(row.a - row.b).toFixed(0).padStart(7)}  ${row.fn.slice(0, 140)}\n`)
  }
}

async function measure (name: ServerName, scenarios: Scenario[], init: AnswersMessage | undefined, reference: Map<string, Awaited<ReturnType<typeof capture>>>, settings: { requests: number, warmUp: number, top: number, inclusive: boolean }, schemas: SpecSchemas): Promise<Map<string, Counted>> {
  const dir = join(OUT_DIR, name)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  const server: RunningServer = await launch(name, {
    pin: null,
    wrapper: ['valgrind', '--tool=callgrind', '--separate-threads=yes', '--instr-atstart=no', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`],
    nodeArgs: ['--perf-basic-prof'],
    // the V8 log --perf-basic-prof starts lands in the working directory: next to the dumps
    cwd: dir,
    startTimeoutMs: 300_000,
    ...(init === undefined ? {} : { init })
  })
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS })
  const out = new Map<string, Counted>()
  try {
    // Every scenario is checked and warmed up before any is counted: the first one counted in a fresh process
    // otherwise pays for code the later ones find compiled (its count came out 10-25% high).
    for (const scenario of scenarios) {
      for (const part of partsOf(scenario)) {
        const captured = await capture(server.port, part)
        const problems = init === undefined ? problemsWith(schemas, part, captured) : differences(reference.get(part.name) as typeof captured, captured)
        if (problems.length > 0) throw new Error(`${name} answers ${part.name} wrongly: ${problems.join('; ')}`)
      }
      await load(agent, server.port, scenario, settings.warmUp)
    }
    for (const scenario of scenarios) {
      // a short warm-up again right before counting: what the other scenarios ran since may have moved the optimiser
      await load(agent, server.port, scenario, Math.ceil(settings.warmUp / 5))
      const label = scenario.name.replace(/[^a-z0-9]+/gi, '-')
      control(server.pid, '-i', 'on')
      await load(agent, server.port, scenario, settings.requests)
      control(server.pid, '-i', 'off')
      control(server.pid, '-d', label)
      const result = counted(dir, label)
      out.set(scenario.name, result)
      process.stdout.write(`${name} ${scenario.name}: ${(result.total / settings.requests / 1000).toFixed(1)}k instructions per request, ${((result.total - result.outside) / settings.requests / 1000).toFixed(1)}k without the collector and compilers\n`)
      if (settings.top > 0) result.byFunction = byFunction(result.file, server.pid, settings.inclusive)
    }
  } finally {
    agent.destroy()
    await server.stop()
    // kept next to the dumps, to name their JIT-compiled functions later
    try {
      copyFileSync(`/tmp/perf-${server.pid}.map`, join(dir, `perf-${server.pid}.map`))
      rmSync(`/tmp/perf-${server.pid}.map`)
    } catch {}
  }
  return out
}

const FLOORS: readonly ServerName[] = ['bare', 'bare-tool']

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      server: { type: 'string', default: 'plugin' },
      floors: { type: 'string', default: FLOORS.join(',') },
      scenarios: { type: 'string' },
      requests: { type: 'string', default: '2000' },
      'warm-up': { type: 'string', default: '10000' },
      top: { type: 'string', default: '0' },
      isolated: { type: 'boolean', default: false },
      inclusive: { type: 'boolean', default: false }
    }
  })
  const name = values.server as ServerName
  if (name !== 'plugin' && name !== 'defined') throw new Error(`--server: plugin or defined, got "${name}"`)
  const floors = values.floors.split(',') as ServerName[]
  for (const floor of floors) if (!FLOORS.includes(floor)) throw new Error(`--floors: ${FLOORS.join(' or ')}, got "${floor}"`)
  const wanted = values.scenarios?.split(',') ?? SCENARIOS.map((s) => s.name)
  const served = (floor: ServerName): Scenario[] => SCENARIOS.filter((s) => wanted.includes(s.name) && s.servers.includes(name) && s.servers.includes(floor))
  const scenarios = SCENARIOS.filter((s) => floors.some((floor) => served(floor).includes(s)))
  if (scenarios.length === 0) throw new Error('no scenario selected that a floor serves')
  const settings = { requests: Number(values.requests), warmUp: Number(values['warm-up']), top: Number(values.top), inclusive: values.inclusive }

  process.stdout.write('compiling ...\n')
  compileServers([name, ...floors])
  const schemas = new SpecSchemas()
  // the floors answer the server's own bytes, captured without valgrind
  const reference = new Map<string, Awaited<ReturnType<typeof capture>>>()
  const init: AnswersMessage = { type: 'answers', answers: [] }
  const source = await launch(name, { pin: null })
  try {
    for (const part of scenarios.flatMap(partsOf)) {
      if (reference.has(part.name)) continue
      const captured = await capture(source.port, part)
      reference.set(part.name, captured)
      init.answers.push({ key: cannedKey(JSON.parse(part.body)) ?? part.name, status: captured.status, headers: stableHeaders(captured.headers), body: captured.bytes.toString('base64') })
    }
  } finally {
    await source.stop()
  }

  /** The scenarios counted in one server (mixed), or each in a server of its own (`--isolated`). */
  const measureAll = async (server: ServerName, list: Scenario[], answers: AnswersMessage | undefined): Promise<Map<string, Counted>> => {
    if (!values.isolated) return await measure(server, list, answers, reference, settings, schemas)
    const out = new Map<string, Counted>()
    for (const scenario of list) {
      for (const [key, value] of await measure(server, [scenario], answers, reference, settings, schemas)) out.set(key, value)
    }
    return out
  }
  const ours = await measureAll(name, scenarios, undefined)
  const measured = new Map<ServerName, Map<string, Counted>>()
  for (const floor of floors) {
    if (served(floor).length > 0) measured.set(floor, await measureAll(floor, served(floor), init))
  }
  const k = (n: number): string => `${(n / settings.requests / 1000).toFixed(1)}k`
  const row = (scenario: Scenario, count: (c: Counted) => number): string => {
    const a = count(ours.get(scenario.name) as Counted)
    let text = k(a).padStart(9)
    for (const floor of measured.keys()) {
      const b = measured.get(floor)?.get(scenario.name)
      text += b === undefined ? '-'.padStart(11) + '-'.padStart(7) : k(count(b)).padStart(11) + (a / count(b)).toFixed(3).padStart(7)
    }
    return text
  }
  const header = `${name.padStart(9)}${[...measured.keys()].map((floor) => floor.padStart(11) + 'ratio'.padStart(7)).join('')}`
  process.stdout.write(`\ninstructions per request on the main thread (${settings.requests} after ${settings.warmUp} of warm-up, ${values.isolated ? 'each scenario in a server of its own' : 'every scenario in one server'}), ratio = ${name} / floor\n`)
  process.stdout.write(`${'scenario'.padEnd(20)}${header}   |${header}  (without collector/compilers)\n`)
  for (const scenario of scenarios) {
    process.stdout.write(`${scenario.name.padEnd(20)}${row(scenario, (c) => c.total)}   |${row(scenario, (c) => c.total - c.outside)}\n`)
  }
  if (settings.top > 0) {
    for (const scenario of scenarios) {
      for (const [floor, counts] of measured) {
        const theirs = counts.get(scenario.name)
        if (theirs === undefined) continue
        process.stdout.write(`\n${scenario.name}, ${name} against ${floor}\n`)
        compare(name, floor, ours.get(scenario.name)?.byFunction ?? new Map(), theirs.byFunction ?? new Map(), settings.requests, settings.top, settings.inclusive)
      }
    }
  }
}

main().catch((error: Error) => {
  process.stderr.write(`instructions: ${error.message}\n`)
  process.exitCode = 1
})
