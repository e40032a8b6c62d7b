/**
 * Issue 36 items 4 and 5: what a client sends (tool and prompt names,
 * methods, URIs, ids, versions) reached span names and attributes whole and
 * became metric label values. A 200,000-character unknown tool name made a
 * 200,011-character span name, queued whole while an exporter was slow;
 * random names filled the SDK's metric series cap, after which a real tool's
 * measurements landed in `otel.metric.overflow`. Span names are now made only
 * of names the server knows, span attributes are clipped, and metric labels
 * come from bounded sets. Read with the OpenTelemetry SDK.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { SpanKind } from '@opentelemetry/api'
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { AggregationTemporality, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import mcpCapabilities, { definePrompts, defineResources, defineTools } from '../../lib/index.js'
import { META_VERSION, MODERN, modernMeta } from '../helpers/mcp-inject.js'
import { MB, settledBytes } from './helpers.js'

class TestReader extends MetricReader {
  constructor () { super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE }) }
  protected async onForceFlush (): Promise<void> {}
  protected async onShutdown (): Promise<void> {}
}

const HUGE = 200_000

async function build (t: Test): Promise<{ app: FastifyInstance, exporter: InMemorySpanExporter, reader: TestReader }> {
  const exporter = new InMemorySpanExporter()
  const reader = new TestReader()
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    serverInfo: { name: 'bounded', version: '1.0.0' },
    server: {
      ...defineTools({ echo: { handler: () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) } }),
      ...definePrompts({ greet: { handler: () => 'hello' } }),
      ...defineResources({ a: { uri: 'mem://a', read: () => 'a' } })
    },
    telemetry: {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      meterProvider: new MeterProvider({ readers: [reader] })
    }
  })
  await app.ready()
  return { app, exporter, reader }
}

/** A legacy request (any method, id and params, version header optional), answered or not. */
async function legacy (app: FastifyInstance, method: string, params: Record<string, unknown>, id: string | number = 1, version?: string): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  if (version !== undefined) headers['mcp-protocol-version'] = version
  const response = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify({ jsonrpc: '2.0', id, method, params }) })
  if (response.statusCode >= 500) throw new Error(`answered ${response.statusCode}: ${response.body.slice(0, 200)}`)
}

async function modern (app: FastifyInstance, method: string, params: Record<string, unknown>, version = MODERN): Promise<void> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method
  }
  if (typeof params.name === 'string') headers['mcp-name'] = params.name
  const message = { jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...modernMeta(), [META_VERSION]: version } } }
  const response = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(message) })
  if (response.statusCode >= 500) throw new Error(`answered ${response.statusCode}: ${response.body.slice(0, 200)}`)
}

function serverSpans (exporter: InMemorySpanExporter): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER)
}

/** The longest string a span carries, name or attribute. */
function longest (span: ReadableSpan): number {
  let max = span.name.length
  for (const value of Object.values(span.attributes)) {
    if (typeof value === 'string') max = Math.max(max, value.length)
  }
  return max
}

t.test('a 200,000-character unknown tool name: the bare method as span name, the name clipped to 128', async (t) => {
  const { app, exporter } = await build(t)
  const huge = 'x'.repeat(HUGE)
  await legacy(app, 'tools/call', { name: huge, arguments: {} })
  await modern(app, 'tools/call', { name: 'y'.repeat(HUGE), arguments: {} })
  await legacy(app, 'prompts/get', { name: huge })
  await legacy(app, 'resources/read', { uri: 'mem://' + huge })
  await legacy(app, 'x/'.repeat(HUGE / 2), {})
  await legacy(app, 'tools/list', {}, 'i'.repeat(HUGE))
  await legacy(app, 'tools/list', {}, 1, 'v'.repeat(HUGE))
  const spans = serverSpans(exporter)
  t.equal(spans.length, 7, `one span per request: ${spans.map((s) => s.name.slice(0, 40)).join(', ')}`)
  t.same(spans.map((s) => s.name), ['tools/call', 'tools/call', 'prompts/get', 'resources/read', '_OTHER', 'tools/list', 'tools/list'])
  for (const span of spans) t.ok(longest(span) <= 1024, `${span.name.slice(0, 40)}: longest string ${longest(span)}`)
  const [legacyCall, modernCall, prompt, read, unknown, byId, byVersion] = spans as ReadableSpan[] & { length: 7 }
  t.equal(legacyCall?.attributes['gen_ai.tool.name'], 'x'.repeat(128), 'the name the client sent, clipped to the spec\'s 128 characters')
  t.equal(modernCall?.attributes['gen_ai.tool.name'], 'y'.repeat(128))
  t.equal(prompt?.attributes['gen_ai.prompt.name'], 'x'.repeat(128))
  t.equal((read?.attributes['mcp.resource.uri'] as string).length, 1024)
  t.equal(unknown?.attributes['mcp.method.name'], '_OTHER')
  t.equal((byId?.attributes['jsonrpc.request.id'] as string).length, 128)
  t.equal((byVersion?.attributes['mcp.protocol.version'] as string).length, 128)
})

t.test('known names still name the span', async (t) => {
  const { app, exporter } = await build(t)
  await legacy(app, 'tools/call', { name: 'echo', arguments: {} })
  await legacy(app, 'prompts/get', { name: 'greet' })
  await modern(app, 'tools/call', { name: 'echo', arguments: {} })
  t.same(serverSpans(exporter).map((s) => s.name), ['tools/call echo', 'prompts/get greet', 'tools/call echo'])
})

t.test('clipping never leaves half a surrogate pair', async (t) => {
  const { app, exporter } = await build(t)
  await legacy(app, 'tools/call', { name: 'a'.repeat(127) + '😀'.repeat(10), arguments: {} })
  const name = serverSpans(exporter)[0]?.attributes['gen_ai.tool.name'] as string
  t.equal(name, 'a'.repeat(127))
  t.equal(Buffer.from(name, 'utf8').toString('utf8'), name, 'well-formed UTF-16 (survives a UTF-8 round trip)')
})

t.test('random names, methods and versions keep the metric series few; a real tool keeps its own', async (t) => {
  const { app, reader } = await build(t)
  for (let i = 0; i < 300; i++) {
    const random = Math.random().toString(36).slice(2)
    await legacy(app, 'tools/call', { name: random, arguments: {} })
    await legacy(app, 'prompts/get', { name: random })
    await legacy(app, 'method/' + random, {})
    await legacy(app, 'tools/list', {}, i, '2025-' + random)
  }
  await modern(app, 'tools/call', { name: 'unknown-modern', arguments: {} }, '2099-01-01')
  await legacy(app, 'tools/call', { name: 'echo', arguments: {} }, 1, '2025-11-25')
  const { resourceMetrics, errors } = await reader.collect()
  t.same(errors, [])
  const points = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).filter((m) => m.descriptor.name === 'mcp.server.operation.duration').flatMap((m): Array<{ attributes: Record<string, unknown> }> => m.dataPoints)
  t.ok(points.length > 0)
  t.ok(points.length <= 12, `series: ${points.length}`)
  const labelValues = new Set(points.flatMap((p) => Object.values(p.attributes)))
  for (const value of labelValues) t.ok(typeof value !== 'string' || value.length <= 32, `label value ${String(value).slice(0, 40)}`)
  t.ok(points.some((p) => p.attributes['mcp.method.name'] === '_OTHER'), 'unknown methods share _OTHER')
  t.ok(points.some((p) => p.attributes['gen_ai.tool.name'] === 'echo' && p.attributes['mcp.protocol.version'] === '2025-11-25'), 'the real tool has its own series')
  t.notOk(points.some((p) => Object.keys(p.attributes).includes('otel.metric.overflow')))
})

t.test('queued spans of huge unknown names hold no copy of them (a clipped value is not a view of the whole)', async (t) => {
  // An exporter that never answers and a long schedule: every span stays queued.
  const silent: SpanExporter = { export () {}, shutdown: async () => {} }
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(silent, { scheduledDelayMillis: 3_600_000 })] })
  const app = Fastify({ bodyLimit: 4 * MB })
  // Not shut down: a flush would wait for the exporter that never answers.
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    serverInfo: { name: 'queued', version: '1.0.0' },
    server: defineTools({ echo: { handler: () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) } }),
    limits: { bodyLimit: 4 * MB },
    telemetry: { tracerProvider: provider }
  })
  await app.ready()
  for (let i = 0; i < 20; i++) await legacy(app, 'tools/call', { name: 'echo', arguments: {} })
  const before = await settledBytes()
  const calls = 20
  for (let i = 0; i < calls; i++) {
    const name = String(i) + 'x'.repeat(MB)
    await legacy(app, 'tools/call', { name, arguments: {} }, 'i' + name, 'v' + name)
    await legacy(app, 'resources/read', { uri: 'mem://' + name })
  }
  const held = await settledBytes() - before
  // Whole names would be over 20 x 2 x 4 MB; clipped copies are a few KiB a span.
  t.ok(held < 8 * MB, `held ${(held / MB).toFixed(1)} MiB for ${2 * calls} queued spans`)
})
