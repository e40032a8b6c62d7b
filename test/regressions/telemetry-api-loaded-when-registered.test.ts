// Guards issue 35 (cold start): with `telemetry` on (the default) and
// `@opentelemetry/api` installed, registering the plugin loaded the API (some
// 40 modules) although nothing was registered with it, so no request could
// be traced. It is now loaded once something is registered (an SDK started
// after the app still gets its requests traced). Run in a child process: the
// module cache of this one already holds the API.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { runModuleScript } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

const LIB = pathToFileURL(join(REPO_ROOT, 'lib', 'index.ts')).href

const SCRIPT = `
import { createRequire } from 'node:module'
const require = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))})
const Fastify = (await import('fastify')).default
const { default: mcpCapabilities, defineTools } = await import(${JSON.stringify(LIB)})
const app = Fastify()
await app.register(mcpCapabilities, {
  serverInfo: { name: 'lazy-otel', version: '1.0.0' },
  server: defineTools({ ping: { handler: () => ({ content: [{ type: 'text', text: 'pong' }] }) } })
})
await app.ready()
const loadedAtReady = require.resolve('@opentelemetry/api') in require.cache
const call = () => app.inject({
  method: 'POST',
  url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'ping', arguments: {} } })
})
const before = await call()
const loadedAfterACall = require.resolve('@opentelemetry/api') in require.cache
const { trace } = await import('@opentelemetry/api')
const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base')
const exporter = new InMemorySpanExporter()
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))
const after = await call()
await app.close()
console.log(JSON.stringify({ loadedAtReady, loadedAfterACall, statuses: [before.statusCode, after.statusCode], spans: exporter.getFinishedSpans().map((span) => span.name) }))
`

t.test('the OpenTelemetry API is loaded once a provider is registered, not with the plugin', async (t) => {
  const result = await runModuleScript(SCRIPT)
  t.equal(result.loadedAtReady, false, 'registering the plugin did not load @opentelemetry/api')
  t.equal(result.loadedAfterACall, false, 'nor did a request while nothing is registered')
  t.strictSame(result.statuses, [200, 200])
  t.strictSame(result.spans, ['tools/call ping'], 'a provider registered after the app started traces its requests')
})
