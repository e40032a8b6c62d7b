/**
 * Memory a client can pin in the span queue (issue 36 item 4): with a batch
 * span processor whose exporter never answers, every traced request stays
 * queued (up to the SDK's 2,048 spans), so what a span carries of the
 * client's strings is what the client can pin. Side by side in one run:
 * calls of a defined tool, then calls of unknown tools with 900 KB names
 * (span names use only known names, client strings are clipped on
 * attributes). Part of `npm run bench:hostile`.
 */
import Fastify from 'fastify'
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import mcpCapabilities, { defineTools } from '../lib/index.js'
import { settledHeap } from './settled-heap.js'

/** An exporter that takes a batch and never says how it went (a collector that stopped answering). */
const silent: SpanExporter = { export () {}, shutdown: async () => {} }

export async function spanQueueMemory (calls = 200, nameBytes = 900_000): Promise<void> {
  const app = Fastify({ bodyLimit: 2 * nameBytes + 4096 })
  // A long schedule: nothing is handed to the exporter during the run, every span stays queued.
  const provider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(silent, { scheduledDelayMillis: 3_600_000, maxQueueSize: 2048 })] })
  await app.register(mcpCapabilities, {
    serverInfo: { name: 'span-queue', version: '1' },
    server: defineTools({ echo: { handler: () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) } }),
    limits: { bodyLimit: 2 * nameBytes + 4096 },
    telemetry: { tracerProvider: provider }
  })
  await app.ready()
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  const send = (name: string): Promise<unknown> => app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } }) })

  // Warm-up: compiled code and first-use caches are not what a client pins.
  for (let i = 0; i < 50; i++) await send('echo')
  console.log(`\nspan queue, exporter not answering: ${calls} calls each, heap after GC`)
  console.log('case'.padEnd(48), 'held MiB', 'per span KiB')
  const rows: Array<[string, () => string]> = [
    ['defined tool "echo"', () => 'echo'],
    [`unknown tools, ${(nameBytes / 1000).toFixed(0)} KB names`, () => Math.random().toString(36).slice(2) + 'x'.repeat(nameBytes)]
  ]
  for (const [what, name] of rows) {
    const before = await settledHeap()
    for (let i = 0; i < calls; i++) await send(name())
    const held = await settledHeap() - before
    console.log(what.padEnd(48), (held / 2 ** 20).toFixed(2).padStart(8), (held / calls / 1024).toFixed(2).padStart(12))
  }
  await app.close()
  await provider.shutdown().catch(() => {})
}
