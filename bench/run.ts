/**
 * `npm run bench`: the plugin against a bare Fastify route returning the same
 * bytes and against the official MCP stack, on the requests clients and
 * gateways send most (issue 5). Never part of `npm test`.
 *
 *   npm run bench                    # 7 rounds x 4 s per server and scenario (~7 min)
 *   npm run bench -- --quick         # smoke run: 2 rounds x 2 s
 *   npm run bench -- --help          # every flag
 *
 * Each server runs in its own process pinned to core 1 (`taskset`), the load
 * generator (autocannon, in this process) on core 0. Every answer is checked
 * before it is timed, and every timed response must repeat the checked bytes.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, release, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon, { type Result } from 'autocannon'
import { choosePinning, compileServers, launch, pinSelf, readCpuSeconds, readMemory, resetPeakMemory, RESULTS_DIR, type RunningServer } from './launch.js'
import { cannedKey, partsOf, requestSequence, SCENARIOS, type Scenario, type ScenarioName, type ServerName } from './scenarios.js'
import type { AnswersMessage } from './servers/canned.js'
import { capture, type Captured, differences, problemsWith, SpecSchemas, stableHeaders } from './validate.js'

const ALL_SERVERS: readonly ServerName[] = ['plugin', 'defined', 'bare', 'bare-tool', 'official', 'official-zod', 'tmcp']
/**
 * The floors, handed the reference's bytes: bare answers them canned;
 * bare-tool also checks a call's arguments, runs the tool and serialises its
 * result (the work no endpoint avoids), an extra column beside the targets.
 */
const FLOORS: readonly ServerName[] = ['bare', 'bare-tool']
/** A server process using this share of its core is the bottleneck, as a benchmark wants. */
const SATURATED = 0.85

const HELP = `Usage: npm run bench -- [options]

  --quick              smoke run (2 rounds x 2 s, 1 s warm-up)
  --rounds N           A/B rounds per scenario            (env BENCH_ROUNDS, default 7)
  --duration S         seconds per timed run              (env BENCH_DURATION, default 4)
  --warmup S           seconds of warm-up per server      (env BENCH_WARMUP, default 2)
  --connections N      autocannon connections             (default 10; pipelining is 1)
  --servers a,b        subset of plugin,defined,bare,bare-tool,official,official-zod,tmcp (default
                       all; the bare server copies plugin's bytes, or official's without plugin;
                       bare-tool, in the tools/call scenarios, also validates the arguments,
                       runs the tool and serialises the result;
                       defined = the tools from defineTools, official-zod = the official
                       stack with zod schemas, tmcp = tmcp 1.x with zod, the three in
                       tools/call only)
  --scenarios a,b      subset of discover,initialize,tools/list,rejected,tools/call,
                       "legacy tools/call","call/list 9:1" (the mix: plugin and bare)
  --no-pin             do not pin with taskset
  --strict             exit 1 when a target is missed
  --out FILE           JSON output (default bench/results/latest.json)
`

interface Config {
  rounds: number
  duration: number
  warmup: number
  connections: number
  pipelining: number
  servers: ServerName[]
  scenarios: Scenario[]
  pin: boolean
  strict: boolean
  out: string
}

function positive (name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${value}"`)
  return n
}

function list<T extends string> (name: string, value: string | undefined, known: readonly T[]): T[] {
  if (value === undefined) return [...known]
  const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '')
  for (const item of items) {
    if (!known.includes(item as T)) throw new Error(`--${name}: unknown "${item}" (known: ${known.join(', ')})`)
  }
  return items as T[]
}

function readConfig (): Config | null {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      rounds: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      servers: { type: 'string' },
      scenarios: { type: 'string' },
      'no-pin': { type: 'boolean', default: false },
      strict: { type: 'boolean', default: false },
      out: { type: 'string' },
      help: { type: 'boolean', default: false }
    }
  })
  if (values.help) {
    process.stdout.write(HELP)
    return null
  }
  const quick = values.quick === true
  const env = process.env
  const scenarioNames = list<ScenarioName>('scenarios', values.scenarios, SCENARIOS.map((s) => s.name))
  return {
    rounds: Math.round(positive('rounds', values.rounds ?? env.BENCH_ROUNDS, quick ? 2 : 7)),
    duration: positive('duration', values.duration ?? env.BENCH_DURATION, quick ? 2 : 4),
    warmup: positive('warmup', values.warmup ?? env.BENCH_WARMUP, quick ? 1 : 2),
    connections: Math.round(positive('connections', values.connections, 10)),
    pipelining: 1,
    servers: list<ServerName>('servers', values.servers, ALL_SERVERS),
    scenarios: SCENARIOS.filter((s) => scenarioNames.includes(s.name)),
    pin: values['no-pin'] !== true,
    strict: values.strict === true,
    out: values.out ?? join(RESULTS_DIR, 'latest.json')
  }
}

// ---------------------------------------------------------------------------
// One autocannon run, with its own microsecond-resolution latency record
// (autocannon's histogram counts whole milliseconds, too coarse at ~1 ms).

interface Run {
  round: number
  rps: number
  p50: number
  p99: number
  /** Peak RSS of the server process during the run, bytes. */
  rss: number
  /** Server CPU time per response, microseconds: the cost of a request, robust to a busy machine. */
  cpuPerRequest: number
  /** Share of one core the load generator (this process) used. */
  loaderCpu: number
  /** Share of one core the server process used during the run (1 = saturated: the server, not the load generator, is the limit). */
  cpu: number
  requests: number
  problems: string[]
}

/** The checked answer to each plain scenario a timed run sends (a mix sends several). */
type ExpectedBody = (part: Scenario) => string

function load (port: number, scenario: Scenario, seconds: number, config: Config, expectedBody: ExpectedBody): Promise<{ result: Result, latencies: Float64Array, mismatches: number }> {
  return new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16)
    let count = 0
    let mismatches = 0
    // A mix sends its parts in turn on every connection; autocannon checks one expected body only, so each part checks its own.
    const mixed = scenario.mix === undefined
      ? { body: scenario.body, expectBody: expectedBody(scenario) }
      : {
          requests: requestSequence(scenario).map((part) => {
            const expected = expectedBody(part)
            return {
              method: 'POST' as const,
              headers: part.headers,
              body: part.body,
              onResponse: (_status: number, body: string) => { if (body !== expected) mismatches++ }
            }
          })
        }
    const instance = autocannon({
      url: `http://127.0.0.1:${port}/mcp`,
      method: 'POST',
      headers: scenario.headers,
      connections: config.connections,
      pipelining: config.pipelining,
      duration: seconds,
      ...mixed
    }, (error, result) => {
      if (error) reject(error)
      else resolve({ result, latencies: latencies.subarray(0, count), mismatches })
    })
    instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => {
      if (count === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2)
        bigger.set(latencies)
        latencies = bigger
      }
      latencies[count++] = ms
    })
  })
}

function percentile (sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  return sorted[Math.max(0, index)] as number
}

function loadProblems (result: Result, scenario: Scenario, mismatches: number): string[] {
  const problems: string[] = []
  const statuses = new Set(partsOf(scenario).map((part) => part.status))
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) {
    if (!statuses.has(Number(code))) problems.push(`${count} responses with HTTP ${code}`)
  }
  if (result.errors > 0) problems.push(`${result.errors} errors`)
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`)
  if (result.mismatches + mismatches > 0) problems.push(`${result.mismatches + mismatches} bodies differ from the validated answer`)
  if (result.requests.total === 0) problems.push('no responses')
  return problems
}

/** A server using less than this share of its core is idle. */
const IDLE_CPU = 0.05
const SETTLE_POLL_MS = 100
const SETTLE_LIMIT_MS = 3_000

/**
 * Waits until no server process is still busy from the previous run (closing
 * sockets, collecting garbage): they share one core, so leftover work would be
 * charged to whichever server is timed next.
 */
async function settle (servers: Iterable<RunningServer>): Promise<void> {
  const pids = [...servers].map((server) => server.pid)
  const deadline = Date.now() + SETTLE_LIMIT_MS
  let before = pids.map(readCpuSeconds)
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS))
    const now = pids.map(readCpuSeconds)
    const busiest = Math.max(...now.map((cpu, i) => (cpu - (before[i] as number)) / (SETTLE_POLL_MS / 1000)))
    if (busiest < IDLE_CPU) return
    before = now
  }
}

async function measure (server: RunningServer, scenario: Scenario, round: number, config: Config, expectedBody: ExpectedBody): Promise<Run> {
  resetPeakMemory(server.pid)
  const cpuBefore = readCpuSeconds(server.pid)
  const loaderBefore = process.cpuUsage()
  const { result, latencies, mismatches } = await load(server.port, scenario, config.duration, config, expectedBody)
  const cpu = (readCpuSeconds(server.pid) - cpuBefore) / result.duration
  const loaderUsage = process.cpuUsage(loaderBefore)
  const loaderCpu = (loaderUsage.user + loaderUsage.system) / 1e6 / result.duration
  const memory = readMemory(server.pid)
  const sorted = latencies.slice().sort()
  return {
    round,
    rps: result.requests.total / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    rss: memory.peak,
    cpu,
    cpuPerRequest: (cpu * result.duration * 1e6) / result.requests.total,
    loaderCpu,
    requests: result.requests.total,
    problems: loadProblems(result, scenario, mismatches)
  }
}

// ---------------------------------------------------------------------------
// Statistics and the report

interface Spread { median: number, min: number, max: number }

function spread (values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
  return { median, min: sorted[0] as number, max: sorted[sorted.length - 1] as number }
}

type Metric = 'rps' | 'p50' | 'p99' | 'rss' | 'cpu' | 'cpuPerRequest' | 'loaderCpu'

interface Cell {
  rps: Spread
  p50: Spread
  p99: Spread
  rss: Spread
  cpu: Spread
  cpuPerRequest: Spread
  loaderCpu: Spread
  runs: Run[]
}

interface Ratio {
  name: string
  scenario: ScenarioName | 'all'
  metric: Metric
  numerator: string
  denominator: string
  /** Ratio of the medians. */
  value: number
  /** Spread of the per-round ratios (A and B timed back to back in the same round). */
  min: number
  max: number
  /** Empty for a ratio shown for information (against the second floor). */
  target: string
  pass: boolean
}

function cell (runs: Run[]): Cell {
  const of = (metric: Metric): Spread => spread(runs.map((run) => run[metric]))
  return { rps: of('rps'), p50: of('p50'), p99: of('p99'), rss: of('rss'), cpu: of('cpu'), cpuPerRequest: of('cpuPerRequest'), loaderCpu: of('loaderCpu'), runs }
}

function ratio (
  name: string, scenario: ScenarioName | 'all', metric: Metric,
  a: { label: string, cell: Cell }, b: { label: string, cell: Cell },
  target: { op: '>=' | '<=', value: number } | null
): Ratio {
  const value = a.cell[metric].median / b.cell[metric].median
  const perRound = a.cell.runs.map((run, i) => run[metric] / (b.cell.runs[i]?.[metric] ?? Number.NaN)).filter(Number.isFinite)
  const { min, max } = perRound.length > 0 ? spread(perRound) : { min: Number.NaN, max: Number.NaN }
  if (target === null) return { name, scenario, metric, numerator: a.label, denominator: b.label, value, min, max, target: '', pass: true }
  const pass = target.op === '>=' ? value >= target.value : value <= target.value
  return { name, scenario, metric, numerator: a.label, denominator: b.label, value, min, max, target: `${target.op} ${target.value}`, pass }
}

/**
 * Peak RSS is a property of the process, and the heap one scenario grows is
 * still there in the next: so compare each round's peak over the scenarios
 * both servers ran.
 */
function peakMemory (cells: Map<ScenarioName, Map<ServerName, Cell>>, a: ServerName, b: ServerName): [{ label: string, cell: Cell }, { label: string, cell: Cell }] | null {
  const shared = [...cells.values()].filter((byServer) => byServer.has(a) && byServer.has(b))
  if (shared.length === 0) return null
  const peaks = (server: ServerName): { label: string, cell: Cell } => {
    const perScenario = shared.map((byServer) => (byServer.get(server) as Cell).runs)
    const runs = (perScenario[0] as Run[]).map((run, round) => ({ ...run, rss: Math.max(...perScenario.map((r) => r[round]?.rss ?? 0)) }))
    return { label: `${server} all scenarios`, cell: cell(runs) }
  }
  return [peaks(a), peaks(b)]
}

function ratios (cells: Map<ScenarioName, Map<ServerName, Cell>>): Ratio[] {
  const out: Ratio[] = []
  const get = (scenario: ScenarioName, server: ServerName): { label: string, cell: Cell } | null => {
    const c = cells.get(scenario)?.get(server)
    return c === undefined ? null : { label: `${scenario} ${server}`, cell: c }
  }
  // issue 35: at most 1.08x the floor's CPU per request on every workload, p99 within 1.2x
  for (const scenario of ['discover', 'initialize', 'tools/list', 'tools/call', 'legacy tools/call', 'call/list 9:1'] as const) {
    const plugin = get(scenario, 'plugin')
    const bare = get(scenario, 'bare')
    if (plugin !== null && bare !== null) {
      out.push(ratio('plugin/bare CPU/req', scenario, 'cpuPerRequest', plugin, bare, { op: '<=', value: 1.08 }))
      out.push(ratio('plugin/bare p99', scenario, 'p99', plugin, bare, { op: '<=', value: 1.2 }))
    }
    // the second floor, for information: what the plugin costs over the tool's own unavoidable work, like
    // for like: the server whose tools check their arguments too (`defined`; `plugin`'s raw handlers do not)
    const defined = get(scenario, 'defined')
    const bareTool = get(scenario, 'bare-tool')
    if (defined !== null && bareTool !== null) {
      out.push(ratio('defined/bare-tool CPU/req', scenario, 'cpuPerRequest', defined, bareTool, null))
      out.push(ratio('defined/bare-tool p99', scenario, 'p99', defined, bareTool, null))
    }
  }
  for (const scenario of ['discover', 'initialize', 'tools/list'] as const) {
    const plugin = get(scenario, 'plugin')
    const bare = get(scenario, 'bare')
    const official = get(scenario, 'official')
    if (plugin !== null && bare !== null) {
      // throughput is only meaningful with the server's core saturated (see the warning under the table)
      out.push(ratio('plugin/bare req/s', scenario, 'rps', plugin, bare, { op: '>=', value: 0.9 }))
    }
    if (plugin !== null && official !== null) {
      out.push(ratio('plugin/official req/s', scenario, 'rps', plugin, official, { op: '>=', value: 6 }))
      out.push(ratio('official/plugin CPU/req', scenario, 'cpuPerRequest', official, plugin, { op: '>=', value: 6 }))
    }
  }
  const raw = get('tools/call', 'plugin')
  const defined = get('tools/call', 'defined')
  const official = get('tools/call', 'official')
  const officialZod = get('tools/call', 'official-zod')
  if (defined !== null && raw !== null) {
    // validated arguments cost at most 15% over the same tool as a raw handler
    out.push(ratio('defined/raw CPU/req', 'tools/call', 'cpuPerRequest', defined, raw, { op: '<=', value: 1.15 }))
    out.push(ratio('defined/raw req/s', 'tools/call', 'rps', defined, raw, { op: '>=', value: 0.87 }))
  }
  if (defined !== null && officialZod !== null) {
    // issue 13: ten times the official stack validating with zod, as its users write tools
    out.push(ratio('defined/official-zod req/s', 'tools/call', 'rps', defined, officialZod, { op: '>=', value: 10 }))
    out.push(ratio('official-zod/defined CPU/req', 'tools/call', 'cpuPerRequest', officialZod, defined, { op: '>=', value: 10 }))
  }
  if (defined !== null && official !== null) {
    // the official stack with the catalogue's JSON Schemas: held to the plugin/official target of the other scenarios
    out.push(ratio('defined/official req/s', 'tools/call', 'rps', defined, official, { op: '>=', value: 6 }))
    out.push(ratio('official/defined CPU/req', 'tools/call', 'cpuPerRequest', official, defined, { op: '>=', value: 6 }))
  }
  for (const scenario of ['tools/call', 'legacy tools/call'] as const) {
    // tmcp, the fastest other MCP framework on Node, validating with zod as the defined tools validate with TypeBox
    const validated = get(scenario, 'defined')
    const tmcp = get(scenario, 'tmcp')
    if (validated !== null && tmcp !== null) out.push(ratio('tmcp/defined CPU/req', scenario, 'cpuPerRequest', tmcp, validated, { op: '>=', value: 6 }))
  }
  const memory = peakMemory(cells, 'plugin', 'bare')
  if (memory !== null) out.push(ratio('plugin/bare peak RSS', 'all', 'rss', memory[0], memory[1], { op: '<=', value: 1.15 }))
  const rejected = get('rejected', 'plugin')
  const discover = get('discover', 'plugin')
  if (rejected !== null && discover !== null) {
    // "costs no more than a successful discover": at least the same throughput, no worse tail
    out.push(ratio('rejected/discover req/s', 'rejected', 'rps', rejected, discover, { op: '>=', value: 1 }))
    out.push(ratio('rejected/discover p99', 'rejected', 'p99', rejected, discover, { op: '<=', value: 1 }))
    out.push(ratio('rejected/discover CPU/req', 'rejected', 'cpuPerRequest', rejected, discover, { op: '<=', value: 1 }))
  }
  return out
}

function fixed (n: number, digits: number): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a'
}

function formatSpread (s: Spread, scale: number, digits: number): string {
  return `${fixed(s.median * scale, digits)} (${fixed(s.min * scale, digits)}-${fixed(s.max * scale, digits)})`
}

function pad (text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length)
}

function table (rows: string[][]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? []
  return rows.map((row) => row.map((text, i) => pad(text, (widths[i] ?? 0) + 2)).join('').trimEnd()).join('\n')
}

function report (cells: Map<ScenarioName, Map<ServerName, Cell>>, found: Ratio[], config: Config): string {
  const rows: string[][] = [['scenario', 'server', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB', 'server CPU µs/req', 'CPU server/loader']]
  for (const [scenario, byServer] of cells) {
    for (const [server, c] of byServer) {
      rows.push([scenario, server, formatSpread(c.rps, 1, 0), formatSpread(c.p50, 1, 3), formatSpread(c.p99, 1, 3), formatSpread(c.rss, 1 / 2 ** 20, 1), formatSpread(c.cpuPerRequest, 1, 0), `${fixed(c.cpu.median * 100, 0)}% / ${fixed(c.loaderCpu.median * 100, 0)}%`])
    }
  }
  const ratioRows: string[][] = [['ratio', 'scenario', 'medians', 'per round', 'target', '']]
  for (const r of found) {
    ratioRows.push([r.name, r.scenario, fixed(r.value, 3), `${fixed(r.min, 2)}-${fixed(r.max, 2)}`, r.target, r.target === '' ? '' : r.pass ? 'ok' : 'MISSED'])
  }
  const lines = [
    `medians of ${config.rounds} rounds x ${config.duration} s, ${config.connections} connections, pipelining ${config.pipelining} (min-max in brackets)`,
    '',
    table(rows),
    '',
    table(ratioRows)
  ]
  const busiest = Math.max(...[...cells.values()].flatMap((byServer) => [...byServer.values()].map((c) => c.cpu.median)))
  if (busiest < SATURATED) {
    lines.push('', `warning: no server kept its core busy (highest median ${fixed(busiest * 100, 0)}%): the machine is shared or throttled, so`,
      'req/s and latency measure it more than the servers; CPU/req (server CPU time per response) still compares them.')
  }
  return lines.join('\n')
}

// ---------------------------------------------------------------------------

function rotate<T> (items: readonly T[], by: number): T[] {
  const n = items.length
  return items.map((_, i) => items[(i + by) % n] as T)
}

function fail (message: string): never {
  throw new Error(message)
}

async function main (): Promise<number> {
  const config = readConfig()
  if (config === null) return 0
  const schemas = new SpecSchemas()
  const pinning = choosePinning(config.pin)
  const started: RunningServer[] = []
  const servers = new Map<ServerName, RunningServer>()
  // The plain requests each server's answers are checked on: its scenarios', a mix's parts included.
  const plainServed = (name: ServerName): Scenario[] => [...new Set(config.scenarios.filter((s) => s.servers.includes(name)).flatMap(partsOf))]

  process.stdout.write(`compiling ${config.servers.join(', ')} ...\n`)
  compileServers(config.servers)
  if (pinning.loader !== null) pinSelf(pinning.loader)

  try {
    // 1. The servers that answer for themselves, checked first.
    const answers = new Map<ServerName, Map<ScenarioName, Captured>>()
    // a server no selected scenario uses is not started (defined and official-zod serve tools/call only)
    for (const name of config.servers.filter((s) => !FLOORS.includes(s) && config.scenarios.some((scenario) => scenario.servers.includes(s)))) {
      const server = await launch(name, { pin: pinning.server })
      started.push(server)
      servers.set(name, server)
      const byScenario = new Map<ScenarioName, Captured>()
      for (const scenario of plainServed(name)) {
        const captured = await capture(server.port, scenario)
        const problems = problemsWith(schemas, scenario, captured)
        if (problems.length > 0) fail(`${name} answers ${scenario.name} wrongly:\n  - ${problems.join('\n  - ')}\n  body: ${captured.body.slice(0, 400)}`)
        byScenario.set(scenario.name, captured)
      }
      answers.set(name, byScenario)
      process.stdout.write(`${name}: pid ${server.pid}, port ${server.port}, answers checked (${[...byScenario.keys()].join(', ')})\n`)
    }

    // 2. The floors, given the reference's exact bytes, must give them back.
    const floors = FLOORS.filter((floor) => config.servers.includes(floor) && plainServed(floor).length > 0)
    const referenceName: ServerName | undefined = config.servers.includes('plugin') ? 'plugin' : config.servers.find((s) => !FLOORS.includes(s))
    const reference = referenceName === undefined ? undefined : answers.get(referenceName)
    for (const floor of floors) {
      if (reference === undefined) fail(`the ${floor} server copies the plugin (or official) answers: run it with one of them`)
      const canned: AnswersMessage = { type: 'answers', answers: [] }
      for (const scenario of plainServed(floor)) {
        const captured = reference.get(scenario.name) ?? fail(`no ${referenceName} answer to copy for ${scenario.name}`)
        canned.answers.push({
          key: cannedKey(JSON.parse(scenario.body)) ?? fail(`${scenario.name}: no method in the body`),
          status: captured.status,
          headers: stableHeaders(captured.headers),
          body: captured.bytes.toString('base64')
        })
      }
      const server = await launch(floor, { pin: pinning.server, init: canned })
      started.push(server)
      servers.set(floor, server)
      const byScenario = new Map<ScenarioName, Captured>()
      for (const scenario of plainServed(floor)) {
        const captured = await capture(server.port, scenario)
        const diff = differences(reference.get(scenario.name) as Captured, captured)
        if (diff.length > 0) fail(`${floor} differs from ${referenceName} on ${scenario.name}: ${diff.join('; ')}`)
        const problems = problemsWith(schemas, scenario, captured)
        if (problems.length > 0) fail(`${floor} answers ${scenario.name} wrongly: ${problems.join('; ')}`)
        byScenario.set(scenario.name, captured)
      }
      answers.set(floor, byScenario)
      process.stdout.write(`${floor}: pid ${server.pid}, port ${server.port}, bytes identical to ${referenceName}'s (${[...byScenario.keys()].join(', ')})\n`)
    }

    // 3. Warm-up, then rounds: each round times every scenario on every server,
    //    servers back to back (order rotated each round), so that A and B, and
    //    discover and rejected, always meet the same machine conditions.
    const plan = config.scenarios
      .map((scenario) => ({ scenario, names: config.servers.filter((s) => scenario.servers.includes(s)) }))
      .filter(({ names }) => names.length > 0)
    const runs = new Map<string, Run[]>()
    const invalid: string[] = []
    const expectedBody = (name: ServerName): ExpectedBody => (part) => (answers.get(name)?.get(part.name) as Captured).body
    for (const { scenario, names } of plan) {
      for (const name of names) {
        const server = servers.get(name) as RunningServer
        const { result, mismatches } = await load(server.port, scenario, config.warmup, config, expectedBody(name))
        const problems = loadProblems(result, scenario, mismatches)
        if (problems.length > 0) invalid.push(`${scenario.name} ${name} warm-up: ${problems.join(', ')}`)
        runs.set(`${scenario.name} ${name}`, [])
      }
    }
    for (let round = 0; round < config.rounds; round++) {
      for (const { scenario, names } of plan) {
        for (const name of rotate(names, round)) {
          const server = servers.get(name) as RunningServer
          await settle(servers.values())
          const run = await measure(server, scenario, round, config, expectedBody(name))
          if (run.problems.length > 0) invalid.push(`${scenario.name} ${name} round ${round + 1}: ${run.problems.join(', ')}`)
          runs.get(`${scenario.name} ${name}`)?.push(run)
          process.stdout.write(`  round ${round + 1}/${config.rounds} ${pad(scenario.name, 11)} ${pad(name, 12)} ${fixed(run.rps, 0)} req/s, p99 ${fixed(run.p99, 3)} ms, RSS ${fixed(run.rss / 2 ** 20, 1)} MB, server CPU ${fixed(run.cpu * 100, 0)}% (${fixed(run.cpuPerRequest, 0)} µs/req), loader CPU ${fixed(run.loaderCpu * 100, 0)}%\n`)
        }
      }
    }
    const cells = new Map<ScenarioName, Map<ServerName, Cell>>(plan.map(({ scenario, names }) =>
      [scenario.name, new Map(names.map((name) => [name, cell(runs.get(`${scenario.name} ${name}`) as Run[])]))]))

    // 4. Still correct after the load?
    for (const [name, byScenario] of answers) {
      const server = servers.get(name) as RunningServer
      for (const scenario of plainServed(name).filter((s) => byScenario.has(s.name))) {
        const after = await capture(server.port, scenario)
        const diff = differences(byScenario.get(scenario.name) as Captured, after)
        if (diff.length > 0) invalid.push(`${name} ${scenario.name} after the load: ${diff.join('; ')}`)
      }
    }

    const found = ratios(cells)
    const text = report(cells, found, config)
    process.stdout.write('\n' + text + '\n')

    const cpu = cpus()
    const json = {
      date: new Date().toISOString(),
      machine: {
        cpu: cpu[0]?.model ?? 'unknown',
        cores: cpu.length,
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        kernel: release(),
        node: process.version,
        pinning
      },
      config: {
        rounds: config.rounds,
        durationSeconds: config.duration,
        warmupSeconds: config.warmup,
        connections: config.connections,
        pipelining: config.pipelining,
        servers: config.servers
      },
      scenarios: Object.fromEntries(config.scenarios.map((s) => [s.name, { what: s.what, status: s.status }])),
      units: { rps: 'requests/s', p50: 'ms', p99: 'ms', rss: 'bytes (VmHWM during the run)', cpu: 'share of one core used by the server process', cpuPerRequest: 'server CPU microseconds per response', loaderCpu: 'share of one core used by the load generator' },
      results: Object.fromEntries([...cells].map(([scenario, byServer]) => [scenario, Object.fromEntries(byServer)])),
      ratios: found,
      invalid,
      table: text
    }
    mkdirSync(RESULTS_DIR, { recursive: true })
    writeFileSync(config.out, JSON.stringify(json, null, 2) + '\n')
    process.stdout.write(`\nwritten to ${config.out}\n`)

    if (invalid.length > 0) {
      process.stderr.write(`\nINVALID runs (results not trustworthy):\n  - ${invalid.join('\n  - ')}\n`)
      return 1
    }
    if (config.strict && found.some((r) => !r.pass)) return 1
    return 0
  } finally {
    await Promise.all(started.map((server) => server.stop()))
  }
}

main().then((code) => { process.exitCode = code }, (error: Error) => {
  process.stderr.write(`bench: ${error.message}\n`)
  process.exitCode = 1
})
