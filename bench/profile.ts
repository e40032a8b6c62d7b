/**
 * Profile before optimising: runs the plugin's bench server under
 * `node --cpu-prof`, loads it with the benchmark's requests, then lists where
 * the server spent its CPU, overall and in the plugin's own code (lib/).
 *
 *   npx tsx bench/profile.ts                         # every scenario, 5 s each
 *   npx tsx bench/profile.ts --scenarios discover --duration 10
 *   npx tsx bench/profile.ts --server bare           # the floor, for comparison
 *
 * The .cpuprofile is kept under bench/results/profiles/ (open it in Chrome
 * DevTools or speedscope for the flame graph).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { choosePinning, compileServers, launch, pinSelf, REPO_DIR, RESULTS_DIR, type RunningServer } from './launch.js'
import { SCENARIOS, type ScenarioName, type ServerName } from './scenarios.js'
import type { AnswersMessage } from './servers/bare.js'
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

function print (title: string, rows: Hot[], total: number, by: 'self' | 'total', limit: number): void {
  process.stdout.write(`\n${title}\n`)
  process.stdout.write(`  ${'self %'.padStart(7)} ${'total %'.padStart(8)}  function  (file:line)\n`)
  for (const hot of [...rows].sort((a, b) => b[by] - a[by]).slice(0, limit)) {
    const self = ((hot.self / total) * 100).toFixed(1).padStart(6)
    const incl = ((hot.total / total) * 100).toFixed(1).padStart(7)
    process.stdout.write(`  ${self}% ${incl}%  ${hot.name}  (${hot.where})\n`)
  }
}

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      server: { type: 'string', default: 'plugin' },
      scenarios: { type: 'string' },
      duration: { type: 'string', default: '5' },
      connections: { type: 'string', default: '10' },
      top: { type: 'string', default: '25' },
      'no-pin': { type: 'boolean', default: false }
    }
  })
  const serverName = values.server as ServerName
  if (!['plugin', 'bare', 'official'].includes(serverName)) throw new Error(`--server: plugin, bare or official, got "${serverName}"`)
  const wanted = values.scenarios?.split(',') ?? SCENARIOS.map((s) => s.name)
  const scenarios = SCENARIOS.filter((s) => wanted.includes(s.name) && s.servers.includes(serverName))
  if (scenarios.length === 0) throw new Error(`no scenario selected that ${serverName} serves`)
  const duration = Number(values.duration)
  const top = Number(values.top)

  const profileDir = join(RESULTS_DIR, 'profiles', serverName)
  rmSync(profileDir, { recursive: true, force: true })
  mkdirSync(profileDir, { recursive: true })
  const pinning = choosePinning(values['no-pin'] !== true)
  const schemas = new SpecSchemas()
  const started: RunningServer[] = []
  process.stdout.write(`compiling ...\n`)
  compileServers(serverName === 'bare' ? ['plugin', 'bare'] : [serverName])
  if (pinning.loader !== null) pinSelf(pinning.loader)

  try {
    let init: AnswersMessage | undefined
    if (serverName === 'bare') {
      // the floor needs the plugin's bytes, captured without profiling
      const reference = await launch('plugin', { pin: pinning.server })
      started.push(reference)
      init = { type: 'answers', answers: [] }
      for (const scenario of scenarios) {
        const captured = await capture(reference.port, scenario)
        init.answers.push({ method: JSON.parse(scenario.body).method, status: captured.status, headers: stableHeaders(captured.headers), body: captured.bytes.toString('base64') })
      }
      await reference.stop()
    }
    const server = await launch(serverName, {
      pin: pinning.server,
      nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profileDir],
      ...(init === undefined ? {} : { init })
    })
    started.push(server)
    for (const scenario of scenarios) {
      const captured = await capture(server.port, scenario)
      const problems = problemsWith(schemas, scenario, captured)
      if (problems.length > 0) throw new Error(`${serverName} answers ${scenario.name} wrongly: ${problems.join('; ')}`)
      const result = await new Promise<{ requests: { total: number }, duration: number }>((resolve, reject) => {
        autocannon({
          url: `http://127.0.0.1:${server.port}/mcp`,
          method: 'POST',
          headers: scenario.headers,
          body: scenario.body,
          connections: Number(values.connections),
          pipelining: 1,
          duration
        }, (error, r) => { if (error) reject(error); else resolve(r) })
      })
      process.stdout.write(`${scenario.name}: ${Math.round(result.requests.total / result.duration)} req/s under the profiler\n`)
    }
    await server.stop()
  } finally {
    await Promise.all(started.map((s) => s.stop()))
  }

  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no .cpuprofile written in ${profileDir}`)
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile
  // from the first request on: Fastify's route handler for the plugin and bare servers alike
  const { hot, sampled: total } = hotSpots(profile, 'handleRequest')
  const idle = hot.filter((h) => h.name === '(idle)').reduce((sum, h) => sum + h.self, 0)
  const busy = total - idle
  process.stdout.write(`\nprofile: ${relative(REPO_DIR, join(profileDir, file))} (${(total / 1e6).toFixed(1)} s sampled from the first request on, ${(busy / 1e6).toFixed(1)} s busy; percentages of busy time)\n`)
  const working = hot.filter((h) => h.name !== '(idle)')
  print(`top ${top} by self time`, working, busy, 'self', top)
  const ours = working.filter((h) => h.where.startsWith('lib/'))
  print(`the plugin's own code (lib/) by inclusive time`, ours, busy, 'total', top)
}

main().catch((error: Error) => {
  process.stderr.write(`profile: ${error.message}\n`)
  process.exitCode = 1
})
