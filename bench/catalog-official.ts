/**
 * Modern tools/call as the catalogue grows, this plugin (`defineTools`,
 * TypeBox) against the official stack (`@modelcontextprotocol/fastify` +
 * `createMcpHandler`, one McpServer per request as its docs prescribe, zod
 * schemas), the same catalogue of N search tools, side by side in one run.
 * Both are Fastify apps in this process, driven by `inject` one request at a
 * time, so the harness costs both the same; each figure is bounded in count
 * and time (the official stack rebuilds every tool per request).
 * `--quick` runs fewer requests.
 */
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify'
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import { z } from 'zod'
import mcpCapabilities, { defineTools, type ToolDefinition } from '../lib/index.js'

const QUICK = process.argv.includes('--quick')
const MAX_CALLS = QUICK ? 2000 : 10000
const MAX_MS = QUICK ? 3000 : 8000
const SIZES = [10, 1000, 10000]
/** `--reverse` measures the largest catalogue first (order effects on a busy machine show as a flip). */
const ORDER = process.argv.includes('--reverse') ? [...SIZES].reverse() : SIZES
const MODERN = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } }
const ARGS = { query: 'crash on start', state: 'open', limit: 20 }
const answer = (args: unknown) => ({ content: [{ type: 'text' as const, text: `ok: ${JSON.stringify(args)}` }] })

async function ours (n: number): Promise<FastifyInstance> {
  const tools: Record<string, ToolDefinition<any, any>> = {}
  for (let i = 0; i < n; i++) {
    tools[`search_${i}`] = {
      description: `Searches tracker ${i}`,
      input: Type.Object({
        query: Type.String(),
        state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')], { default: 'open' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }))
      }),
      handler: (args: unknown) => answer(args)
    }
  }
  const app = Fastify()
  await app.register(mcpCapabilities, { server: defineTools(tools), serverInfo: { name: 'bench', version: '1' }, era: 'dual' })
  await app.ready()
  return app
}

async function official (n: number): Promise<FastifyInstance> {
  const schema = z.object({ query: z.string(), state: z.enum(['open', 'closed', 'all']).default('open'), limit: z.number().int().min(1).max(100).default(20) })
  const factory = (): McpServer => {
    const server = new McpServer({ name: 'bench', version: '1' })
    for (let i = 0; i < n; i++) {
      server.registerTool(`search_${i}`, { description: `Searches tracker ${i}`, inputSchema: schema }, async (args: Record<string, unknown>) => answer(args))
    }
    return server
  }
  const handler = createMcpHandler(factory)
  const app = createMcpFastifyApp()
  app.post('/mcp', async (request, reply) => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value)
    const response = await handler.fetch(new Request(`http://127.0.0.1${request.url}`, { method: 'POST', headers }), { parsedBody: request.body })
    reply.code(response.status)
    response.headers.forEach((value, name) => { reply.header(name, value) })
    return reply.send(Buffer.from(await response.arrayBuffer()))
  })
  app.addHook('onClose', async () => { await handler.close() })
  await app.ready()
  return app
}

interface Figure { calls: number, perSecond: number, cpuUs: number }

async function measure (app: FastifyInstance, n: number): Promise<Figure> {
  const name = `search_${Math.floor(n / 2)}`
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: ARGS, _meta: META } })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name, host: '127.0.0.1' }
  const once = async (): Promise<void> => {
    const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload })
    if (res.statusCode !== 200 || !res.body.includes('ok: ')) throw new Error(`${res.statusCode} ${res.body.slice(0, 300)}`)
  }
  const warm = Date.now()
  for (let i = 0; i < 200 && Date.now() - warm < MAX_MS / 4; i++) await once()
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  let calls = 0
  while (calls < MAX_CALLS && Number(process.hrtime.bigint() - start) / 1e6 < MAX_MS) {
    await once()
    calls++
  }
  const wall = Number(process.hrtime.bigint() - start) / 1e9
  const used = process.cpuUsage(cpu)
  return { calls, perSecond: calls / wall, cpuUs: (used.user + used.system) / calls }
}

const results: Record<string, Record<number, Figure>> = { ours: {}, official: {} }
// Warm-up of both stacks (discarded): the first figure must not pay for the JIT.
for (const make of [ours, official]) {
  const app = await make(10)
  await measure(app, 10)
  await app.close()
}
for (const n of ORDER) {
  const a = await ours(n)
  results.ours![n] = await measure(a, n)
  await a.close()
  const b = await official(n)
  results.official![n] = await measure(b, n)
  await b.close()
}
const f = (x: number, d = 1) => x.toFixed(d)
console.log(`modern tools/call, inject, one at a time (${QUICK ? 'quick' : 'full'}: at most ${MAX_CALLS} calls or ${MAX_MS} ms per figure)`)
for (const n of SIZES) {
  const o = results.ours![n] as Figure
  const s = results.official![n] as Figure
  console.log(`${String(n).padStart(6)} tools | ours ${f(o.perSecond, 0)} req/s, ${f(o.cpuUs)} µs CPU (x${f(o.cpuUs / (results.ours![10] as Figure).cpuUs, 2)} of 10) | official ${f(s.perSecond, 0)} req/s, ${f(s.cpuUs)} µs CPU (x${f(s.cpuUs / (results.official![10] as Figure).cpuUs, 2)} of 10), ${s.calls} calls | official/ours CPU x${f(s.cpuUs / o.cpuUs, 1)}`)
}
