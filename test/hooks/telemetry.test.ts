/**
 * Traces and metrics by the OpenTelemetry MCP semantic conventions, read
 * with the SDK's in-memory span exporter and a metric reader: span names and
 * attributes, parentage (a client's `_meta` trace context, else the HTTP
 * request's active span), the tool's own spans beneath, `error.type` for
 * JSON-RPC errors and `tool_error`, the duration histogram, and the option
 * that turns it all off.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { context, metrics, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics'
import mcpCapabilities, { defineTools, McpError, ErrorCode, toolError } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

class TestReader extends MetricReader {
  constructor () { super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE }) }
  protected async onForceFlush (): Promise<void> {}
  protected async onShutdown (): Promise<void> {}
}

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const reader = new TestReader()
const meterProvider = new MeterProvider({ readers: [reader] })
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
trace.setGlobalTracerProvider(provider)
metrics.setGlobalMeterProvider(meterProvider)

const appTracer = trace.getTracer('app')
const server = defineTools({
  add: {
    input: Type.Object({ a: Type.Number(), b: Type.Number() }),
    handler: async ({ a, b }) => appTracer.startActiveSpan('db.query', async (span) => {
      await new Promise((resolve) => setImmediate(resolve))
      span.end()
      return { content: [{ type: 'text' as const, text: String(a + b) }] }
    })
  },
  refuse: { handler: () => toolError('no') },
  fail: { handler: () => { throw new McpError(ErrorCode.InvalidParams, 'bad') } }
})

async function build (t: Test, options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'otel', version: '1.0.0' }, server, ...options })
  await app.ready()
  exporter.reset()
  return app
}

function serverSpans (): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.SERVER)
}

t.test('modern tools/call: one SERVER span by the conventions, the tool\'s spans beneath it', async (t) => {
  const app = await build(t)
  const client = injectClient(app, { era: 'modern' })
  await client.callTool('add', { a: 1, b: 2 })
  const span = serverSpans().find((s) => s.name === 'tools/call add')
  t.ok(span, `spans: ${exporter.getFinishedSpans().map((s) => s.name).join(', ')}`)
  if (span === undefined) return
  t.match(span.attributes, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'add',
    'gen_ai.operation.name': 'execute_tool',
    'mcp.protocol.version': '2026-07-28',
    'jsonrpc.request.id': String
  })
  t.equal(span.attributes['error.type'], undefined)
  const child = exporter.getFinishedSpans().find((s) => s.name === 'db.query')
  t.equal(child?.parentSpanContext?.spanId, span.spanContext().spanId, 'the handler runs inside the span\'s context')
  t.equal(child?.spanContext().traceId, span.spanContext().traceId)
})

t.test('legacy: names, version from the header, errors as error.type', async (t) => {
  const app = await build(t)
  const client = injectClient(app, { era: 'legacy' })
  await client.discover()
  await client.callTool('refuse')
  await t.rejects(client.callTool('fail'))
  await t.rejects(client.getPrompt('missing'))
  const byName = new Map(serverSpans().map((s) => [s.name, s]))
  t.ok(byName.has('initialize'))
  t.equal(byName.get('tools/call refuse')?.attributes['error.type'], 'tool_error')
  t.equal(byName.get('tools/call refuse')?.status.code, SpanStatusCode.ERROR)
  t.equal(byName.get('tools/call fail')?.attributes['error.type'], String(ErrorCode.InvalidParams))
  t.equal(byName.get('tools/call fail')?.attributes['rpc.response.status_code'], String(ErrorCode.InvalidParams))
  t.equal(byName.get('prompts/get')?.attributes['error.type'], String(ErrorCode.MethodNotFound), 'a rejection by the endpoint is recorded too (an unknown name stays out of the span name)')
  t.equal(byName.get('prompts/get')?.attributes['gen_ai.prompt.name'], 'missing', 'the name the client sent is an attribute')
  t.equal(byName.get('tools/call fail')?.attributes['mcp.protocol.version'], client.protocolVersion ?? byName.get('tools/call fail')?.attributes['mcp.protocol.version'])
})

t.test('parent: the _meta trace context when sent, else the active (HTTP) span', async (t) => {
  const app = await build(t)
  const traceId = '0af7651916cd43dd8448eb211c80319c'
  const parentId = 'b7ad6b7169203331'
  const client = injectClient(app, { era: 'modern' })
  await client.callTool('add', { a: 1, b: 1 }, { _meta: { traceparent: `00-${traceId}-${parentId}-01`, tracestate: 'vendor=1', baggage: 'user=ann' } })
  const fromMeta = serverSpans().find((s) => s.name === 'tools/call add')
  t.equal(fromMeta?.spanContext().traceId, traceId)
  t.equal(fromMeta?.parentSpanContext?.spanId, parentId)
  t.equal(fromMeta?.parentSpanContext?.isRemote, true)

  exporter.reset()
  await client.callTool('add', { a: 1, b: 1 }, { _meta: { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' } })
  t.not(serverSpans().find((s) => s.name === 'tools/call add')?.spanContext().traceId, '0'.repeat(32), 'an invalid traceparent is ignored')

  exporter.reset()
  const http = trace.getTracer('http').startSpan('POST /mcp', { kind: SpanKind.SERVER })
  await context.with(trace.setSpan(context.active(), http), () => client.callTool('add', { a: 2, b: 2 }))
  http.end()
  const nested = serverSpans().find((s) => s.name === 'tools/call add')
  t.equal(nested?.parentSpanContext?.spanId, http.spanContext().spanId, 'child of the HTTP request\'s span (@fastify/otel)')
  t.equal(propagation.getActiveBaggage(), undefined, 'nothing leaks into the caller\'s context')
})

t.test('mcp.server.operation.duration is recorded in seconds with the method and error.type', async (t) => {
  const app = await build(t)
  const client = injectClient(app, { era: 'modern' })
  await client.callTool('add', { a: 1, b: 2 })
  await client.callTool('refuse')
  const { resourceMetrics } = await reader.collect()
  const metric = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'mcp.server.operation.duration') as HistogramMetricData | undefined
  t.ok(metric)
  if (metric === undefined) return
  t.equal(metric.descriptor.unit, 's')
  t.equal(metric.dataPointType, DataPointType.HISTOGRAM)
  const add = metric.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'add' && p.attributes['error.type'] === undefined)
  t.ok(add !== undefined && add.value.count >= 1 && (add.value.sum ?? 0) > 0 && (add.value.sum ?? 1) < 10, 'a short call takes well under 10 s')
  t.ok(metric.dataPoints.some((p) => p.attributes['gen_ai.tool.name'] === 'refuse' && p.attributes['error.type'] === 'tool_error'))
  t.notOk(metric.dataPoints.some((p) => 'jsonrpc.request.id' in p.attributes), 'no per-request attribute on the metric')
})

t.test('telemetry: false records nothing; a bad option fails registration', async (t) => {
  const app = await build(t, { telemetry: false })
  await injectClient(app, { era: 'modern' }).callTool('add', { a: 1, b: 2 })
  t.same(serverSpans(), [])
  const bad = Fastify()
  t.teardown(() => bad.close())
  await t.rejects(async () => { await bad.register(mcpCapabilities, { serverInfo: { name: 'x', version: '1' }, server, telemetry: 'yes' as any }) }, { code: 'FST_MCP_INVALID_OPTION' })
  const unknown = Fastify()
  t.teardown(() => unknown.close())
  await t.rejects(async () => { await unknown.register(mcpCapabilities, { serverInfo: { name: 'x', version: '1' }, server, telemetry: { tracer: {} } as any }) }, { code: 'FST_MCP_INVALID_OPTION', message: /tracer/ })
})

t.test('an explicit tracerProvider is used instead of the global one', async (t) => {
  const own = new InMemorySpanExporter()
  const app = await build(t, { telemetry: { tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(own)] }) } })
  await injectClient(app, { era: 'modern' }).listTools()
  t.same(own.getFinishedSpans().map((s) => s.name), ['tools/list'])
})
