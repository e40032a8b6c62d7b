/**
 * The definition catalogue as it grows (issue 20), side by side in one run:
 * - registering N defined tools (defineTools + register + ready), with one
 *   schema for all and with a schema of each tool's own (TypeBox 0.34, plain
 *   JSON Schema: validators are compiled on a tool's first call);
 * - modern tools/call CPU per request at 10, 1,000 and 10,000 tools, before
 *   and after runtime changes (adds, a disable, a removal);
 * - `fastify.mcp.tools.add` of one tool to the catalogue, and the first
 *   tools/list after it (the list is rebuilt lazily, from each tool's prepared text);
 * - paginated tools/list pages of PAGE items (a third of the smallest
 *   catalogue, at most 50): the first, and the second (after a cursor), so
 *   a page's bytes are the same at every size;
 * - the longest event-loop stall (perf_hooks.monitorEventLoopDelay, 1 ms
 *   resolution) while `add` runs and the first whole tools/list after it is
 *   served over a real socket (127.0.0.1, the body counted, not parsed), and
 *   while an unchanged list is served: what every other request on the
 *   server waits at worst.
 * Each catalogue size runs in a process of its own (heap and JIT state are
 * its own, as in a deployment), in rounds whose order alternates, and the
 * best figure of the rounds is kept, so a busy machine shows less in the
 * ratios. Requests go through `inject` (no sockets): the ratios between
 * catalogue sizes are the point, not the absolute figures.
 * `--quick` runs fewer requests and rounds.
 */
import { Type } from '@sinclair/typebox'
import { spawnSync } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { defineTools, type ToolDefinition } from '../lib/index.js'

const QUICK = process.argv.includes('--quick')
const CALLS = QUICK ? 4000 : 20000
const SIZES = process.argv.includes('--sizes') ? (process.argv[process.argv.indexOf('--sizes') + 1] as string).split(',').map(Number) : [10, 1000, 10000]
const ROUNDS = QUICK ? 2 : 3
/** Every size then serves the same pages, byte for byte (a page of 10 items against one of 50 would measure its length). */
const PAGE = Math.min(50, Math.floor(Math.min(...SIZES) / 3))
const CHILD = process.argv.indexOf('--child')
const MODERN = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} }

/** Schemas for tool `i`: the same for every tool, or one of its own (`distinct`) in the given kind. */
const SCHEMAS = {
  same: () => Type.Object({ query: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
  typebox: (i: number) => Type.Object({ query: Type.String({ maxLength: 100 + i }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
  plain: (i: number) => ({ type: 'object', properties: { query: { type: 'string', maxLength: 100 + i }, limit: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['query'] })
}
type SchemaKind = keyof typeof SCHEMAS

/** `offset` makes a catalogue's schemas differ from an earlier one's (nothing shared between builds). */
function catalogue (n: number, kind: SchemaKind = 'same', offset = 0): Record<string, ToolDefinition<any, any>> {
  const tools: Record<string, ToolDefinition<any, any>> = {}
  for (let i = 0; i < n; i++) {
    tools[`tool_${i}`] = {
      description: `Tool ${i}: searches the tracker`,
      input: SCHEMAS[kind](offset + i),
      handler: ({ query }: { query: string }) => ({ content: [{ type: 'text', text: query }] })
    }
  }
  return tools
}

async function build (n: number, pageSize?: number, kind: SchemaKind = 'same', offset = 0): Promise<{ app: FastifyInstance, ms: number }> {
  const tools = catalogue(n, kind, offset)
  const start = process.hrtime.bigint()
  const app = Fastify()
  await app.register(mcpCapabilities, { server: defineTools(tools), serverInfo: { name: 'bench', version: '1' }, era: 'modern', ...(pageSize === undefined ? {} : { limits: { listPageSize: pageSize } }) })
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
  // The garbage of what was built before (other catalogues) is not this figure's to pay.
  const collect = (globalThis as { gc?: () => void }).gc
  collect?.()
  const before = process.cpuUsage()
  for (let i = 0; i < count; i++) await send(app, method, body, name)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / count
}

interface Figures {
  registerMs: number
  /** Every tool with a schema of its own: TypeBox 0.34, then plain JSON Schema (Ajv). */
  registerDistinctMs: number
  registerPlainMs: number
  addMs: number
  listAfterAddMs: number
  listUnchangedMs: number
  callCpu: number
  changedCpu: number
  pageCpu: number
  /** The second page, after the first page's cursor. */
  cursorPageCpu: number
  /** Longest event-loop stall (ms) over `add` and the first whole list after it, and over an unchanged list. */
  stallAfterAddMs: number
  stallUnchangedMs: number
}

/** POSTs over a real socket; resolves with the byte count of the body (read, never parsed). */
function post (port: number, method: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method }
    }, (res) => {
      let bytes = 0
      res.on('data', (chunk: Buffer) => { bytes += chunk.length })
      res.on('end', () => res.statusCode === 200 ? resolve(bytes) : reject(new Error(`${method}: ${String(res.statusCode)}`)))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** The longest event-loop delay (ms) while `work` runs (and one timer tick after, so a stall at its end is seen). */
async function longestStall (work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  histogram.enable()
  await new Promise((resolve) => setTimeout(resolve, 5))
  histogram.reset()
  await work()
  await new Promise((resolve) => setTimeout(resolve, 5))
  histogram.disable()
  return histogram.max / 1e6
}

/** Stalls over a real socket: `add` then the first whole list, and an unchanged list, medians of seven. */
async function measureStalls (n: number): Promise<{ stallAfterAddMs: number, stallUnchangedMs: number }> {
  const { app } = await build(n)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const port = (app.server.address() as AddressInfo).port
  const list = payload('tools/list', {}, 7)
  for (let i = 0; i < 5; i++) await post(port, 'tools/list', list)
  const afterAdd: number[] = []
  const unchanged: number[] = []
  for (let i = 0; i < 7; i++) {
    afterAdd.push(await longestStall(async () => {
      app.mcp.tools.add(`stall_${i}`, { input: Type.Object({ q: Type.String() }), handler: () => ({ content: [] }) })
      await post(port, 'tools/list', list)
    }))
    unchanged.push(await longestStall(() => post(port, 'tools/list', list)))
  }
  await app.close()
  return { stallAfterAddMs: median(afterAdd), stallUnchangedMs: median(unchanged) }
}

// Medians: one unlucky scheduling slice does not decide.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number

/** Everything for one catalogue size, in this process. */
async function measureSize (n: number): Promise<Figures> {
  // Warm-up: the JIT, before anything is timed.
  {
    const { app } = await build(100)
    await cpuPerCall(app, 'tools/call', payload('tools/call', { name: 'tool_3', arguments: { query: 'bug', limit: 5 } }), 'tool_3', CALLS)
    await app.close()
  }
  let registerMs = Infinity
  for (let r = 0; r < 2; r++) {
    const { app, ms } = await build(n)
    registerMs = Math.min(registerMs, ms)
    await app.close()
  }
  // Schemas of their own (each build's differ from the last's: nothing shared); a call of one tool compiles it.
  const figure = { typebox: Infinity, plain: Infinity }
  for (let r = 0; r < 2; r++) {
    for (const kind of ['typebox', 'plain'] as const) {
      const { app, ms } = await build(n, undefined, kind, r * n)
      await send(app, 'tools/call', payload('tools/call', { name: 'tool_3', arguments: { query: 'bug' } }), 'tool_3')
      figure[kind] = Math.min(figure[kind], ms)
      await app.close()
    }
  }
  const registerDistinctMs = figure.typebox
  const registerPlainMs = figure.plain
  const { app } = await build(n)
  const call = payload('tools/call', { name: 'tool_3', arguments: { query: 'bug', limit: 5 } })
  const callCpu = await cpuPerCall(app, 'tools/call', call, 'tool_3', CALLS)
  // Runtime changes: adds (each followed by the list, rebuilt), a disable, a removal; then the same call.
  const listBody = payload('tools/list', {}, 999)
  await send(app, 'tools/list', listBody)
  const s0 = process.hrtime.bigint()
  for (let i = 0; i < 5; i++) await send(app, 'tools/list', listBody)
  const listUnchangedMs = Number(process.hrtime.bigint() - s0) / 5e6
  const addTimes: number[] = []
  const listTimes: number[] = []
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
  const changedCpu = await cpuPerCall(app, 'tools/call', call, 'tool_3', CALLS)
  await app.close()
  const paged = await build(n, PAGE)
  const pageCpu = await cpuPerCall(paged.app, 'tools/list', payload('tools/list', {}), undefined, CALLS)
  const cursor = (JSON.parse(await send(paged.app, 'tools/list', payload('tools/list', {}))) as { result: { nextCursor: string } }).result.nextCursor
  const cursorPageCpu = await cpuPerCall(paged.app, 'tools/list', payload('tools/list', { cursor }), undefined, CALLS)
  await paged.app.close()
  const stalls = await measureStalls(n)
  return { registerMs, registerDistinctMs, registerPlainMs, addMs: median(addTimes), listAfterAddMs: median(listTimes), listUnchangedMs, callCpu, changedCpu, pageCpu, cursorPageCpu, ...stalls }
}

if (CHILD !== -1) {
  process.stdout.write(JSON.stringify(await measureSize(Number(process.argv[CHILD + 1]))) + '\n')
} else {
  const best: Record<number, Figures> = {}
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? SIZES : [...SIZES].reverse()
    for (const n of order) {
      const child = spawnSync('npx', ['tsx', fileURLToPath(import.meta.url), '--child', String(n), ...(QUICK ? ['--quick'] : [])], { encoding: 'utf8', maxBuffer: 1 << 20, env: { ...process.env, NODE_OPTIONS: '--expose-gc' } })
      if (child.status !== 0) throw new Error(`size ${n}: ${child.stderr}`)
      const figures = JSON.parse(child.stdout.trim().split('\n').pop() as string) as Figures
      const kept = best[n]
      best[n] = kept === undefined
        ? figures
        : Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, Math.min(v, kept[k as keyof Figures])])) as unknown as Figures
    }
  }
  const fmt = (x: number, digits = 1) => x.toFixed(digits)
  const base = best[SIZES[0] as number] as Figures
  console.log(`catalogue scale (${QUICK ? 'quick' : 'full'}: ${CALLS} requests per figure, best of ${ROUNDS} rounds, one process per size, inject, modern era)`)
  for (const n of SIZES) {
    const f = best[n] as Figures
    console.log(`${String(n).padStart(6)} tools | register ${fmt(f.registerMs)} ms (one schema), ${fmt(f.registerDistinctMs)} ms (a TypeBox schema each), ${fmt(f.registerPlainMs)} ms (a plain JSON Schema each) | add ${fmt(f.addMs, 2)} ms | tools/list after an add ${fmt(f.listAfterAddMs, 2)} ms vs ${fmt(f.listUnchangedMs, 2)} ms unchanged`)
  }
  for (const n of SIZES) {
    const f = best[n] as Figures
    console.log(`${String(n).padStart(6)} tools | longest event-loop stall: add + first whole tools/list ${fmt(f.stallAfterAddMs, 2)} ms, unchanged tools/list ${fmt(f.stallUnchangedMs, 2)} ms (real socket)`)
  }
  for (const n of SIZES) {
    const f = best[n] as Figures
    console.log(`${String(n).padStart(6)} tools | tools/call ${fmt(f.callCpu)} µs CPU (x${fmt(f.callCpu / base.callCpu, 2)}) | after changes ${fmt(f.changedCpu)} µs (x${fmt(f.changedCpu / base.callCpu, 2)}) | tools/list page of ${PAGE}: first ${fmt(f.pageCpu)} µs (x${fmt(f.pageCpu / base.pageCpu, 2)}), after a cursor ${fmt(f.cursorPageCpu)} µs (x${fmt(f.cursorPageCpu / base.cursorPageCpu, 2)})`)
  }
}
