/**
 * Profile before optimising: runs the plugin's bench server under
 * `node --cpu-prof`, loads it with the benchmark's requests, then lists where
 * the server spent its CPU, overall and in the plugin's own code (lib/).
 *
 *   npx tsx bench/profile.ts                         # every scenario, 5 s each
 *   npx tsx bench/profile.ts --scenarios discover --duration 10
 *   npx tsx bench/profile.ts --server bare           # the floor
 *   npx tsx bench/profile.ts --compare --scenarios discover
 *                               # plugin and bare, then where the plugin spends more per request
 *   npx tsx bench/profile.ts --server defined,plugin --scenarios tools/call
 *                               # any two servers, compared the same way
 *
 * The .cpuprofile is kept under bench/results/profiles/ (open it in Chrome
 * DevTools or speedscope for the flame graph).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { choosePinning, compileServers, launch, pinSelf, REPO_DIR, RESULTS_DIR, type RunningServer } from './launch.js'
import { cannedKey, partsOf, requestSequence, type Scenario, SCENARIOS, type ServerName } from './scenarios.js'
import type { AnswersMessage } from './servers/canned.js'
import { capture, problemsWith, SpecSchemas, stableHeaders } from './validate.js'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number, columnNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

interface Hot { name: string, where: string, self: number, total: number }

const BUILD_PREFIX = 'bench/results/build/'

function location (url: string, line: number): string {
  if (url === '') return '(native)'
  const path = url.startsWith('file://') ? relative(REPO_DIR, new URL(url).pathname) : url
  const shown = path.startsWith(BUILD_PREFIX) ? path.slice(BUILD_PREFIX.length).replace(/\.js$/, '.ts(js)') : path.replace(/^.*node_modules\//, '')
  return `${shown}:${line + 1}`
}

/**
 * Self and inclusive time per function (microseconds), from the sampled call
 * tree, counting only samples from the first one inside `firstFrame` on (so
 * start-up and module loading stay out of the picture).
 */
export function hotSpots (profile: CpuProfile, firstFrame: string): { hot: Hot[], sampled: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const inFrame = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      if (byId.get(at)?.callFrame.functionName === firstFrame) return true
    }
    return false
  }
  let start = profile.samples.findIndex((id) => inFrame(id))
  if (start < 0) start = 0
  const selfById = new Map<number, number>()
  let sampled = 0
  for (let i = start; i < profile.samples.length; i++) {
    const id = profile.samples[i] as number
    const delta = profile.timeDeltas[i] ?? 0
    sampled += delta
    selfById.set(id, (selfById.get(id) ?? 0) + delta)
  }

  const out = new Map<string, Hot>()
  const keyOf = (node: ProfileNode): string => `${node.callFrame.functionName}@${node.callFrame.url}:${node.callFrame.lineNumber}`
  const entry = (node: ProfileNode): Hot => {
    const key = keyOf(node)
    let hot = out.get(key)
    if (hot === undefined) {
      hot = { name: node.callFrame.functionName || '(anonymous)', where: location(node.callFrame.url, node.callFrame.lineNumber), self: 0, total: 0 }
      out.set(key, hot)
    }
    return hot
  }
  for (const [id, time] of selfById) {
    const node = byId.get(id)
    if (node === undefined) continue
    entry(node).self += time
    // inclusive: credit each distinct function once per sample stack
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)
      if (frame === undefined) break
      const key = keyOf(frame)
      if (seen.has(key)) continue
      seen.add(key)
      entry(frame).total += time
    }
  }
  return { hot: [...out.values()], sampled }
}

function print (title: string, rows: Hot[], busy: number, requests: number, by: 'self' | 'total', limit: number): void {
  process.stdout.write(`\n${title}\n`)
  process.stdout.write(`  ${'self %'.padStart(7)} ${'total %'.padStart(8)} ${'self µs/req'.padStart(12)}  function  (file:line)\n`)
  for (const hot of [...rows].sort((a, b) => b[by] - a[by]).slice(0, limit)) {
    const self = ((hot.self / busy) * 100).toFixed(1).padStart(6)
    const incl = ((hot.total / busy) * 100).toFixed(1).padStart(7)
    const perRequest = (hot.self / requests).toFixed(2).padStart(12)
    process.stdout.write(`  ${self}% ${incl}% ${perRequest}  ${hot.name}  (${hot.where})\n`)
  }
}

interface Profiled {
  server: ServerName
  file: string
  hot: Hot[]
  /** Sampled time from the first request on, microseconds. */
  sampled: number
  /** The part of it not idle. */
  busy: number
  requests: number
}

interface Settings {
  scenarios: Scenario[]
  duration: number
  connections: number
  pin: string | null
}

async function profileServer (name: ServerName, settings: Settings, schemas: SpecSchemas): Promise<Profiled> {
  const profileDir = join(RESULTS_DIR, 'profiles', name)
  rmSync(profileDir, { recursive: true, force: true })
  mkdirSync(profileDir, { recursive: true })
  const scenarios = settings.scenarios.filter((s) => s.servers.includes(name))
  const started: RunningServer[] = []
  let requests = 0
  try {
    let init: AnswersMessage | undefined
    if (name === 'bare') {
      // the floor needs the plugin's bytes, captured without profiling
      const reference = await launch('plugin', { pin: settings.pin })
      started.push(reference)
      init = { type: 'answers', answers: [] }
      for (const scenario of scenarios.flatMap(partsOf)) {
        const captured = await capture(reference.port, scenario)
        init.answers.push({ key: cannedKey(JSON.parse(scenario.body)) ?? scenario.name, status: captured.status, headers: stableHeaders(captured.headers), body: captured.bytes.toString('base64') })
      }
      await reference.stop()
    }
    const server = await launch(name, {
      pin: settings.pin,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir],
      ...(init === undefined ? {} : { init })
    })
    started.push(server)
    for (const scenario of scenarios) {
      for (const part of partsOf(scenario)) {
        const captured = await capture(server.port, part)
        const problems = problemsWith(schemas, part, captured)
        if (problems.length > 0) throw new Error(`${name} answers ${part.name} wrongly: ${problems.join('; ')}`)
      }
      const result = await new Promise<{ requests: { total: number }, duration: number }>((resolve, reject) => {
        autocannon({
          url: `http://127.0.0.1:${server.port}/mcp`,
          method: 'POST',
          headers: scenario.headers,
          // a mix sends its parts in turn on every connection
          ...(scenario.mix === undefined ? { body: scenario.body } : { requests: requestSequence(scenario).map((part) => ({ method: 'POST' as const, headers: part.headers, body: part.body })) }),
          connections: settings.connections,
          pipelining: 1,
          duration: settings.duration
        }, (error, r) => { if (error) reject(error); else resolve(r) })
      })
      requests += result.requests.total
      process.stdout.write(`${name} ${scenario.name}: ${Math.round(result.requests.total / result.duration)} req/s under the profiler\n`)
    }
    await server.stop()
  } finally {
    await Promise.all(started.map((s) => s.stop()))
  }

  const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no .cpuprofile written in ${profileDir}`)
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile
  // from the first request on: Fastify's route handler, for every server alike
  const { hot, sampled } = hotSpots(profile, 'handleRequest')
  const idle = hot.filter((h) => h.name === '(idle)').reduce((sum, h) => sum + h.self, 0)
  return { server: name, file: join(profileDir, file), hot: hot.filter((h) => h.name !== '(idle)'), sampled, busy: sampled - idle, requests }
}

function report (p: Profiled, top: number): void {
  process.stdout.write(`\n== ${p.server}: ${relative(REPO_DIR, p.file)}\n`)
  process.stdout.write(`   ${(p.sampled / 1e6).toFixed(1)} s sampled from the first request on, ${(p.busy / 1e6).toFixed(1)} s busy, ${p.requests} requests: ${(p.busy / p.requests).toFixed(1)} µs busy per request\n`)
  print(`top ${top} by self time`, p.hot, p.busy, p.requests, 'self', top)
  const ours = p.hot.filter((h) => h.where.startsWith('lib/'))
  if (ours.length > 0) print('the plugin\'s own code (lib/) by inclusive time', ours, p.busy, p.requests, 'total', top)
}

/** Where one server spends more CPU per request than another, function by function. */
function compare (a: Profiled, b: Profiled, top: number): void {
  const key = (h: Hot): string => `${h.name}  (${h.where})`
  const perRequest = (p: Profiled): Map<string, number> => new Map(p.hot.map((h) => [key(h), h.self / p.requests]))
  const left = perRequest(a)
  const right = perRequest(b)
  const rows = [...new Set([...left.keys(), ...right.keys()])]
    .map((k) => ({ k, a: left.get(k) ?? 0, b: right.get(k) ?? 0 }))
    .sort((x, y) => (y.a - y.b) - (x.a - x.b))
  const busyA = a.busy / a.requests
  const busyB = b.busy / b.requests
  process.stdout.write(`\n== ${a.server} vs ${b.server}: ${busyA.toFixed(1)} vs ${busyB.toFixed(1)} µs busy per request (${(busyA / busyB).toFixed(2)}x); largest differences in self µs/req\n`)
  process.stdout.write(`  ${a.server.padStart(9)} ${b.server.padStart(9)} ${'diff'.padStart(8)}  function  (file:line)\n`)
  for (const row of rows.slice(0, top)) {
    process.stdout.write(`  ${row.a.toFixed(2).padStart(9)} ${row.b.toFixed(2).padStart(9)} ${(row.a - row.b).toFixed(2).padStart(8)}  ${row.k}\n`)
  }
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      server: { type: 'string' },
      compare: { type: 'boolean', default: false },
      scenarios: { type: 'string' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      top: { type: 'string', default: '25' },
      'no-pin': { type: 'boolean', default: false }
    }
  })
  // --compare alone: plugin against bare; with --server a,b: those two
  const names = (values.server ?? (values.compare === true ? 'plugin,bare' : 'plugin')).split(',') as ServerName[]
  for (const name of names) {
    if (!['plugin', 'defined', 'bare', 'official', 'official-zod'].includes(name)) throw new Error(`--server: plugin, defined, bare, official or official-zod, got "${name}"`)
  }
  const wanted = values.scenarios?.split(',') ?? SCENARIOS.map((s) => s.name)
  const scenarios = SCENARIOS.filter((s) => wanted.includes(s.name) && names.every((name) => s.servers.includes(name)))
  if (scenarios.length === 0) throw new Error(`no scenario selected that ${names.join(' and ')} all serve`)
  const top = Number(values.top)
  const pinning = choosePinning(values['no-pin'] !== true)
  const settings: Settings = { scenarios, duration: Number(values.duration), connections: Number(values.connections), pin: pinning.server }

  process.stdout.write('compiling ...\n')
  compileServers(names.includes('bare') && !names.includes('plugin') ? [...names, 'plugin'] : names)
  if (pinning.loader !== null) pinSelf(pinning.loader)
  const schemas = new SpecSchemas()
  const profiles: Profiled[] = []
  for (const name of names) profiles.push(await profileServer(name, settings, schemas))
  for (const p of profiles) report(p, top)
  if (profiles.length === 2) compare(profiles[0] as Profiled, profiles[1] as Profiled, top)
}

main().catch((error: Error) => {
  process.stderr.write(`profile: ${error.message}\n`)
  process.exitCode = 1
})
