/**
 * The definition catalogue as it grows (issue 20), side by side in one run:
 * - registering N defined tools (defineTools + register + ready);
 * - modern tools/call CPU per request at 10, 1,000 and 10,000 tools, before
 *   and after runtime changes (adds, a disable, a removal);
 * - `fastify.mcp.tools.add` of one tool to the catalogue, and the first
 *   tools/list after it (the list is rebuilt lazily, from each tool's prepared text);
 * - one paginated tools/list page (listPageSize 50).
 * Requests go through `inject` in this process (no sockets): the ratios
 * between catalogue sizes are the point, not the absolute figures.
 * `--quick` runs fewer rounds.
 */
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { defineTools, type ToolDefinition } from '../lib/index.js'

const QUICK = process.argv.includes('--quick')
const CALLS = QUICK ? 4000 : 20000
const SIZES = [10, 1000, 10000]
const MODERN = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} }

function catalogue (n: number): Record<string, ToolDefinition<any, any>> {
  const tools: Record<string, ToolDefinition<any, any>> = {}
  for (let i = 0; i < n; i++) {
    tools[`tool_${i}`] = {
      description: `Tool ${i}: searches the tracker`,
      input: Type.Object({ query: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
      handler: ({ query }: { query: string }) => ({ content: [{ type: 'text', text: query }] })
    }
  }
  return tools
}

async function build (n: number, pageSize?: number): Promise<{ app: FastifyInstance, ms: number }> {
  const tools = catalogue(n)
  const start = process.hrtime.bigint()
  const app = Fastify()
  await app.register(mcpCapabilities, { server: defineTools(tools), serverInfo: { name: 'bench', version: '1' }, era: 'modern', ...(pageSize === undefined ? {} : { listPageSize: pageSize }) })
  await app.ready()
  return { app, ms: Number(process.hrtime.bigint() - start) / 1e6 }
}

function payload (method: string, params: Record<string, unknown>, id = 1): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } })
}

async function send (app: FastifyInstance, method: string, body: string, name?: string): Promise<string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method }
  if (name !== undefined) headers['mcp-name'] = name
  const res = await app.inject({ method: 'POST', url: '/mcp', headers, payload: body })
  if (res.statusCode !== 200) throw new Error(`${method}: ${res.statusCode} ${res.body.slice(0, 200)}`)
  return res.body
}

/** CPU µs per request over `count` requests (after a warm-up). */
async function cpuPerCall (app: FastifyInstance, method: string, body: string, name: string | undefined, count: number): Promise<number> {
  for (let i = 0; i < Math.min(500, count); i++) await send(app, method, body, name)
  const before = process.cpuUsage()
  for (let i = 0; i < count; i++) await send(app, method, body, name)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / count
}

const fmt = (n: number, digits = 1) => n.toFixed(digits)
const rows: string[] = []
const callCpu: Record<number, number> = {}
const changedCpu: Record<number, number> = {}
const pageCpu: Record<number, number> = {}
const registerMs: Record<number, number> = {}

// Warm-up: the first catalogue measured must not pay for the JIT.
{
  const { app } = await build(100)
  await cpuPerCall(app, 'tools/call', payload('tools/call', { name: 'tool_3', arguments: { query: 'bug', limit: 5 } }), 'tool_3', CALLS)
  await app.close()
}

for (const n of SIZES) {
  // Registration: best of a few.
  let best = Infinity
  for (let r = 0; r < (QUICK ? 2 : 3); r++) {
    const { app, ms } = await build(n)
    best = Math.min(best, ms)
    await app.close()
  }
  registerMs[n] = best

  const { app } = await build(n)
  const call = payload('tools/call', { name: 'tool_3', arguments: { query: 'bug', limit: 5 } })
  callCpu[n] = await cpuPerCall(app, 'tools/call', call, 'tool_3', CALLS)

  // Runtime changes: adds, a disable, a removal; then the same call.
  const addTimes: number[] = []
  const listTimes: number[] = []
  const listBody = payload('tools/list', {}, 999)
  await send(app, 'tools/list', listBody)
  const s0 = process.hrtime.bigint()
  for (let i = 0; i < 5; i++) await send(app, 'tools/list', listBody)
  const steadyList = Number(process.hrtime.bigint() - s0) / 5e6
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint()
    app.mcp.tools.add(`added_${i}`, { input: Type.Object({ q: Type.String() }), handler: () => ({ content: [] }) })
    const t1 = process.hrtime.bigint()
    await send(app, 'tools/list', payload('tools/list', {}, 1000 + i))
    const t2 = process.hrtime.bigint()
    addTimes.push(Number(t1 - t0) / 1e6)
    listTimes.push(Number(t2 - t1) / 1e6)
  }
  await app.mcp.tools.disable('tool_5')
  await app.mcp.tools.remove('tool_6')
  changedCpu[n] = await cpuPerCall(app, 'tools/call', call, 'tool_3', CALLS)
  rows.push(`${String(n).padStart(6)} tools | register ${fmt(registerMs[n] as number)} ms | add ${fmt(Math.max(...addTimes), 2)} ms (worst of 5) | first tools/list after add ${fmt(Math.max(...listTimes), 2)} ms (worst) vs ${fmt(steadyList, 2)} ms unchanged (the rebuild: the difference)`)
  await app.close()

  const paged = await build(n, 50)
  const page = payload('tools/list', {})
  pageCpu[n] = await cpuPerCall(paged.app, 'tools/list', page, undefined, CALLS)
  await paged.app.close()
}

console.log(`catalogue scale (${QUICK ? 'quick' : 'full'}: ${CALLS} requests per figure, inject, modern era)`)
for (const row of rows) console.log(row)
for (const n of SIZES) {
  console.log(`${String(n).padStart(6)} tools | tools/call ${fmt(callCpu[n] as number)} µs CPU (x${fmt((callCpu[n] as number) / (callCpu[10] as number), 2)}) | after changes ${fmt(changedCpu[n] as number)} µs (x${fmt((changedCpu[n] as number) / (callCpu[10] as number), 2)}) | tools/list page of 50 ${fmt(pageCpu[n] as number)} µs (x${fmt((pageCpu[n] as number) / (pageCpu[10] as number), 2)})`)
}
