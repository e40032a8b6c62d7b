/**
 * `npm run soak`: the two remote-crash paths of issue 11 and hostile traffic
 * together, for a bounded time, against one server on 127.0.0.1, printing
 * memory as it goes. Each round: a batch of hostile requests (fuzz model),
 * parked tasks whose requests carry ~0.9 MB object-heavy bodies, listen
 * clients that never read, and change notifications to every stream. The
 * heap must level off: the crash paths are bounded (tasks keep only what
 * they need, stuck streams are dropped past limits.maxStreamBufferBytes, open
 * streams are bounded). Never part of `npm test`.
 *
 *   npm run soak                       # 30 s
 *   SOAK_SECONDS=300 npm run soak
 */
import net from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import Fastify from 'fastify'
import mcpCapabilities, { runAsTask, type HandlerContext } from '../lib/index.js'
import { createFuzzRunner, hostileModule, hostileRequest } from '../test/helpers/hostile.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const SECONDS = Number(process.env.SOAK_SECONDS ?? 30)
const MODERN = '2026-07-28'
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)

function heldBytes (): number {
  gc()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

const base = hostileModule() as unknown as Record<string, (...args: unknown[]) => unknown>
const server = {
  ...base,
  listTools: () => ({ tools: [...((base.listTools as () => { tools: unknown[] })().tools), { name: 'park', inputSchema: { type: 'object' } }] }),
  callTool: (params: { name: string }, ctx: HandlerContext) => params.name === 'park'
    ? runAsTask(ctx, async (task) => {
      const answer = await task.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
      return { content: [{ type: 'text', text: String(answer.action) }] }
    })
    : (base.callTool as (p: unknown, c: unknown) => unknown)(params, ctx)
}

const app = Fastify({ logger: false })
await app.register(mcpCapabilities, { server: server as never, serverInfo: { name: 'soak', version: '1' }, tasks: true, limits: { clientRequestTimeoutMs: 20, listen: { keepAliveMs: 1000 } } })
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
if (address === null || typeof address === 'string') throw new Error('no port')
const port = address.port

const pad = '[' + '{},'.repeat(299_999) + '{}]'
const parkBody = (id: number): string => '{"jsonrpc":"2.0","id":' + id + ',"method":"tools/call","params":{"name":"park","arguments":{},"pad":' + pad + ',"_meta":' + JSON.stringify(META) + '}}'
const parkHeaders = { 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'park' }

/** A listen client that never reads. */
function stuckListener (id: number): net.Socket {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: META } })
  const socket = net.connect(port, '127.0.0.1')
  socket.on('error', () => {})
  socket.pause()
  socket.write(`POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\naccept: text/event-stream\r\nmcp-protocol-version: ${MODERN}\r\nmcp-method: subscriptions/listen\r\nauthorization: Bearer soak-${id % 7}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  return socket
}

const runner = createFuzzRunner(app)
const sockets: net.Socket[] = []
const baseline = heldBytes()
let peak = baseline
let parked = 0
let listeners = 0
let notifications = 0
const deadline = Date.now() + SECONDS * 1000
console.log(`soak: ${SECONDS} s on 127.0.0.1:${port}; baseline ${mb(baseline)} MB held (heap + buffers, after GC)`)
for (let round = 0; Date.now() < deadline; round++) {
  for (const request of fc.sample(hostileRequest, { numRuns: 500, seed: round })) await runner.send(request)
  for (let i = 0; i < 10; i++) {
    const reply = await app.inject({ method: 'POST', url: '/mcp', headers: parkHeaders, payload: parkBody(round * 100 + i) })
    if (reply.json().result?.resultType === 'task') parked++
  }
  for (let i = 0; i < 20; i++) sockets.push(stuckListener(listeners++))
  for (let i = 0; i < 2000; i++) notifications += app.mcp.notifyToolsChanged()
  await new Promise((resolve) => setTimeout(resolve, 50))
  const held = heldBytes()
  peak = Math.max(peak, held)
  console.log(`  round ${round + 1}: ${runner.tally.sent} hostile sent (${runner.tally.bad.length} bad), ${parked} tasks parked, ${listeners} stuck listeners opened (${app.mcp.listenStreams} open), ${notifications} notifications written; ${mb(held)} MB held`)
}
const beforeClose = heldBytes()
for (const socket of sockets) socket.destroy()
const closing = app.close()
await runner.finish()
await closing
console.log(`done: ${runner.tally.sent} hostile requests, ${runner.tally.bad.length} bad answers, ${parked} parked tasks, ${listeners} stuck listeners, ${notifications} notifications`)
console.log(`memory held: baseline ${mb(baseline)} MB, peak ${mb(peak)} MB, at the end ${mb(beforeClose)} MB, after close ${mb(heldBytes())} MB; rss ${mb(process.memoryUsage().rss)} MB`)
for (const line of runner.tally.bad.slice(0, 10)) console.log('  bad: ' + line)
process.exitCode = runner.tally.bad.length === 0 ? 0 : 1
