/**
 * What hooks and telemetry cost per request, side by side in one process:
 * the endpoint before them (a build of the base branch, `--before <dir>`,
 * default $HOOKS_BEFORE), and this build with no hook and telemetry off,
 * with no hook and telemetry on but no provider registered (the default
 * when `@opentelemetry/api` is installed), with one no-op hook of each kind,
 * and with tracing and metrics on (an SDK tracer provider, spans batched to
 * an exporter that drops them, and a meter provider with a reader).
 *
 * Each scenario answers modern `tools/call` of a defined tool through
 * `inject` (no socket: the CPU measured is the endpoint's and Fastify's);
 * rounds alternate between scenarios and the median CPU per request of each
 * is kept, with ratios against "before".
 *
 *   npm run build && tsx bench/hooks.ts --before /path/to/base [--rounds 7] [--requests 4000]
 */
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'

const { values } = parseArgs({
  options: {
    before: { type: 'string', default: process.env.HOOKS_BEFORE },
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '4000' }
  }
})
const ROUNDS = Number(values.rounds)
const REQUESTS = Number(values.requests)

class DroppingExporter implements SpanExporter {
  export (_spans: unknown, done: (result: { code: 0 }) => void): void { done({ code: 0 }) }
  async shutdown (): Promise<void> {}
}
class Reader extends MetricReader {
  protected async onForceFlush (): Promise<void> {}
  protected async onShutdown (): Promise<void> {}
}

async function load (dir: string): Promise<any> {
  return await import(pathToFileURL(resolve(dir, 'dist/lib/index.js')).href)
}

async function app (lib: any, options: Record<string, unknown>, setup?: (app: FastifyInstance) => void): Promise<FastifyInstance> {
  const { Type } = await import('@sinclair/typebox')
  const fastify = Fastify()
  await fastify.register(lib.default, {
    serverInfo: { name: 'bench', version: '1.0.0' },
    server: lib.defineTools({
      add: { input: Type.Object({ a: Type.Number(), b: Type.Number() }), handler: ({ a, b }: { a: number, b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }) }
    }),
    ...options
  })
  setup?.(fastify)
  await fastify.ready()
  return fastify
}

const BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } }
})
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' }

async function round (fastify: FastifyInstance): Promise<number> {
  const start = process.cpuUsage()
  for (let i = 0; i < REQUESTS; i++) {
    const res = await fastify.inject({ method: 'POST', url: '/mcp', headers: HEADERS, payload: BODY })
    if (res.statusCode !== 200 || !res.body.includes('"3"')) throw new Error(`unexpected answer ${res.statusCode} ${res.body}`)
  }
  const used = process.cpuUsage(start)
  return (used.user + used.system) / REQUESTS
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

async function main (): Promise<void> {
  const mine = await load('.')
  const scenarios: Array<[string, FastifyInstance]> = []
  if (values.before !== undefined) scenarios.push(['before (base branch)', await app(await load(values.before), {})])
  scenarios.push(['no hook, telemetry: false', await app(mine, { telemetry: false })])
  scenarios.push(['no hook, telemetry on, no provider', await app(mine, {})])
  scenarios.push(['one no-op hook of each kind', await app(mine, { telemetry: false }, (f: any) => {
    f.mcp.addHook('onRequest', () => {})
    f.mcp.addHook('preHandler', () => {})
    f.mcp.addHook('onResult', () => {})
    f.mcp.addHook('onError', () => {})
  })])
  scenarios.push(['tracing + metrics on (SDK)', await app(mine, {
    telemetry: {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(new DroppingExporter())] }),
      meterProvider: new MeterProvider({ readers: [new Reader()] })
    }
  })])
  const samples = scenarios.map(() => [] as number[])
  for (const [, fastify] of scenarios) await round(fastify) // warm-up
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < scenarios.length; i++) samples[i]?.push(await round((scenarios[i] as [string, FastifyInstance])[1]))
  }
  const base = median(samples[0] as number[])
  console.log(`modern tools/call via inject, ${REQUESTS} requests x ${ROUNDS} rounds, median CPU µs/request (ratio vs first row)`)
  for (let i = 0; i < scenarios.length; i++) {
    const m = median(samples[i] as number[])
    console.log(`${(scenarios[i] as [string, FastifyInstance])[0].padEnd(38)} ${m.toFixed(2).padStart(8)} µs  ${(m / base).toFixed(3)}x  (min ${Math.min(...(samples[i] as number[])).toFixed(2)})`)
  }
  for (const [, fastify] of scenarios) await fastify.close()
}

await main()
