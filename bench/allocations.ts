/**
 * Heap bytes allocated per request, the plugin against a bare Fastify route
 * answering the same bytes (and, with `--before <dir>`, against the plugin
 * of another checkout, its `lib/` run through tsx): every scenario of
 * bench/scenarios.ts served by the plugin server of servers/plugin.ts,
 * through `inject()` in this one process. Unlike CPU time this does not
 * move with the machine's load, so it shows what a change to the request
 * path saves even on a busy machine (fewer allocations: less work for the
 * garbage collector, which is most of the tail latency).
 *
 *   npm run bench:allocations
 *   npm run bench:allocations -- --before /path/to/other/checkout
 *
 * Each figure is the median of 5 batches of 2000 requests; a batch during
 * which a garbage collection ran is discarded (hence the large new space
 * the npm script gives Node). `inject()` allocates on its own (~23 KB per
 * request here): compare the columns, not the absolute figures.
 */
import { PerformanceObserver } from 'node:perf_hooks'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { getHeapStatistics } from 'node:v8'
import Fastify, { type FastifyInstance } from 'fastify'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from './catalog.js'
import { cannedKey, SCENARIOS, type Scenario } from './scenarios.js'

const BATCHES = 5
const REQUESTS = 2000
const WARM_UP = 300

const { values } = parseArgs({ options: { before: { type: 'string' } } })

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('run with --expose-gc (npm run bench:allocations does)')
let collections = 0
new PerformanceObserver((list) => { collections += list.getEntries().length }).observe({ entryTypes: ['gc'] })

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

/** The server of servers/plugin.ts, built from the plugin module at `entry`. */
async function pluginApp (entry: string): Promise<FastifyInstance> {
  const lib = await import(entry) as { default: Parameters<FastifyInstance['register']>[0] }
  const toolList = deepFreeze({ tools: structuredClone(TOOLS) })
  const app = Fastify()
  await app.register(lib.default, {
    server: {
      listTools: () => toolList,
      callTool: (params: { name: string, arguments?: Record<string, unknown> }) => callTool(params.name, params.arguments ?? {})
    },
    serverInfo: { ...SERVER_INFO },
    era: 'dual',
    path: '/mcp',
    cacheHints: { discover: { ...DISCOVER_HINTS } }
  })
  await app.ready()
  return app
}

async function send (app: FastifyInstance, scenario: Scenario): Promise<Awaited<ReturnType<FastifyInstance['inject']>>> {
  return await app.inject({ method: 'POST', url: '/mcp', headers: scenario.headers, payload: scenario.body })
}

/** Median bytes per request over the batches no collection interrupted (NaN when every one was). */
async function bytesPerRequest (app: FastifyInstance, scenario: Scenario): Promise<number> {
  const samples: number[] = []
  for (let batch = 0; batch < BATCHES; batch++) {
    for (let i = 0; i < WARM_UP; i++) await send(app, scenario)
    gc?.()
    // the collection just forced is reported asynchronously: let it arrive before counting
    await new Promise((resolve) => setTimeout(resolve, 20))
    const seen = collections
    const before = getHeapStatistics().used_heap_size
    for (let i = 0; i < REQUESTS; i++) await send(app, scenario)
    const after = getHeapStatistics().used_heap_size
    if (collections === seen && after > before) samples.push((after - before) / REQUESTS)
  }
  samples.sort((a, b) => a - b)
  return samples.length === 0 ? Number.NaN : samples[samples.length >> 1] as number
}

const servers: Array<[string, FastifyInstance]> = [['plugin', await pluginApp(pathToFileURL(resolve('lib/index.ts')).href)]]
if (values.before !== undefined) servers.push(['before', await pluginApp(pathToFileURL(resolve(values.before, 'lib/index.ts')).href)])

// The bare route answers the plugin's own bytes, found as servers/bare.ts finds them (method and era).
const plugin = servers[0]?.[1] as FastifyInstance
const scenarios = SCENARIOS.filter((scenario) => scenario.mix === undefined && scenario.servers.includes('bare'))
const answers = new Map<string | undefined, { status: number, type: string, body: Buffer }>()
for (const scenario of scenarios) {
  const response = await send(plugin, scenario)
  answers.set(cannedKey(JSON.parse(scenario.body)), { status: response.statusCode, type: String(response.headers['content-type']), body: response.rawPayload })
}
const bare = Fastify()
bare.post('/mcp', (request, reply) => {
  const answer = answers.get(cannedKey(request.body as Parameters<typeof cannedKey>[0]))
  if (answer === undefined) return reply.code(404).send()
  return reply.code(answer.status).type(answer.type).send(answer.body)
})
await bare.ready()
servers.push(['bare', bare])

process.stdout.write(`heap bytes allocated per request (inject, median of ${BATCHES} x ${REQUESTS})\n\n`)
process.stdout.write(['scenario'.padEnd(20), ...servers.map(([name]) => name.padStart(9)), '  plugin - bare\n'].join(''))
for (const scenario of scenarios) {
  const figures: number[] = []
  for (const [, app] of servers) figures.push(await bytesPerRequest(app, scenario))
  const over = (figures[0] as number) - (figures[figures.length - 1] as number)
  process.stdout.write([scenario.name.padEnd(20), ...figures.map((f) => (Number.isFinite(f) ? Math.round(f).toString() : 'gc').padStart(9)), `  ${Number.isFinite(over) ? Math.round(over) : 'n/a'}\n`].join(''))
}
for (const [, app] of servers) await app.close()
