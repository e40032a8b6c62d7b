// Guards issue 11 item 2 (a remote crash): `subscriptions/listen` streams
// whose clients never read held up to 1 MiB of queued output each (~3.2 MB of
// heap) and their number was unlimited: 300 such clients and ordinary
// notifications exhausted a 512 MB heap. A stream is dropped once the bytes
// queued for it pass `maxStreamBufferBytes` (256 KiB by default), and the
// number of open streams is bounded in total and per caller.
import net from 'node:net'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { errors, type McpCapabilitiesOptions } from '../../lib/index.js'
import { fullModule, toolsModule, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta, rawPost } from '../helpers/mcp-inject.js'
import { MB, settledBytes } from './helpers.js'

const STUCK = 40
/**
 * Heap one never-reading stream may hold at its peak: the 256 KiB it may queue
 * (~1.3x that in strings and queue entries) plus its connection (~150 KiB
 * measured: socket, parser, request and reply). Before the fix: ~3.3 MB.
 */
const BOUND_PER_STREAM = 640 * 1024

/** A resource URI long enough that a few updates fill the kernel's socket buffers. */
const BIG_URI = 'file:///' + 'u'.repeat(64 * 1024)

function listenBody (id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, resourceSubscriptions: [BIG_URI] }, _meta: modernMeta() } })
}

async function start (t: Test, options: Partial<McpCapabilitiesOptions> = {}): Promise<{ app: FastifyInstance, port: number }> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: fullModule(), serverInfo: SERVER_INFO, limits: { listen: { keepAliveMs: 0 } }, ...options })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { app, port: address.port }
}

/** A client that sends a listen request and never reads a byte of the answer. */
function neverReading (port: number, id: number, authorization?: string): net.Socket {
  const body = listenBody(id)
  const headers = { ...modernHeaders('subscriptions/listen'), 'content-type': 'application/json', accept: 'text/event-stream', host: '127.0.0.1', 'content-length': String(Buffer.byteLength(body)) }
  if (authorization !== undefined) (headers as Record<string, string>).authorization = authorization
  const socket = net.connect(port, '127.0.0.1')
  socket.pause()
  socket.write('POST /mcp HTTP/1.1\r\n' + Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n' + body)
  return socket
}

async function until (check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test(`${STUCK} never-reading listeners under notifications: bounded heap per stream, streams dropped`, async (t) => {
  const { app, port } = await start(t, { limits: { listen: { maxStreamsPerCaller: STUCK } } })
  const before = await settledBytes()
  const sockets = Array.from({ length: STUCK }, (_, i) => neverReading(port, i + 1))
  t.teardown(() => { for (const s of sockets) s.destroy() })
  await until(() => app.mcp.listenStreams === STUCK)
  // First large updates (64 KiB each) fill most of what the kernel buffers for a connection (a few
  // MB on loopback), then small list_changed frames (~190 bytes, where per-frame overhead shows)
  // pile up in the process. The heap is measured after every batch: its peak per stream is the figure.
  let rounds = 0
  for (let i = 0; i < 60 && app.mcp.listenStreams > 0; i++, rounds++) {
    app.mcp.notifyResourceUpdated(BIG_URI)
    await new Promise((resolve) => setImmediate(resolve))
  }
  let peak = 0
  for (let batch = 0; batch < 24 && app.mcp.listenStreams > 0; batch++) {
    for (let i = 0; i < 500; i++, rounds++) app.mcp.notifyToolsChanged()
    await new Promise((resolve) => setTimeout(resolve, 5))
    peak = Math.max(peak, (await settledBytes()) - before)
  }
  const perStream = peak / STUCK
  t.comment(`after ${rounds} notifications: ${app.mcp.listenStreams} streams open; peak ${(peak / MB).toFixed(1)} MB held, ${(perStream / 1024).toFixed(0)} KiB per stuck stream`)
  t.equal(app.mcp.listenStreams, 0, 'every stuck stream was dropped')
  for (const s of sockets) s.destroy()
  t.ok(perStream < BOUND_PER_STREAM, `heap per stuck stream ${(perStream / 1024).toFixed(0)} KiB < ${BOUND_PER_STREAM / 1024} KiB`)
})

t.test('open listen streams are bounded per caller (429) and in total (503), with -32000 and the id', async (t) => {
  const { app, port } = await start(t, { limits: { listen: { maxStreams: 3, maxStreamsPerCaller: 2 } } })
  const sockets = [neverReading(port, 1, 'Bearer a'), neverReading(port, 2, 'Bearer a')]
  t.teardown(() => { for (const s of sockets) s.destroy() })
  await until(() => app.mcp.listenStreams === 2)
  const headers = { ...modernHeaders('subscriptions/listen'), 'content-type': 'application/json', accept: 'text/event-stream' }
  const third = await rawPost({ port }, { ...headers, authorization: 'Bearer a' }, listenBody(3))
  t.equal(third.status, 429)
  t.match(JSON.parse(third.body), { jsonrpc: '2.0', id: 3, error: { code: -32000, message: /listen streams/, data: { limit: 2, scope: 'caller' } } })
  sockets.push(neverReading(port, 4, 'Bearer b'))
  await until(() => app.mcp.listenStreams === 3)
  const fourth = await rawPost({ port }, { ...headers, authorization: 'Bearer c' }, listenBody(5))
  t.equal(fourth.status, 503)
  t.match(JSON.parse(fourth.body), { jsonrpc: '2.0', id: 5, error: { code: -32000, message: /listen streams/, data: { limit: 3, scope: 'server' } } })
  ;(sockets.shift() as net.Socket).destroy()
  await until(() => app.mcp.listenStreams === 2)
  sockets.push(neverReading(port, 6, 'Bearer a'))
  await until(() => app.mcp.listenStreams === 3)
  t.pass('a closed stream frees its place')
})

t.test('listen limits and the stream buffer bound are checked at registration', async (t) => {
  const bad: Array<Partial<McpCapabilitiesOptions>> = [
    { limits: { listen: { maxStreams: 0 } } },
    { limits: { listen: { maxStreamsPerCaller: -1 } } },
    { limits: { listen: { maxStreams: 1.5 } } },
    { limits: { listen: 'x' as never } },
    { limits: { maxStreamBufferBytes: 10 } },
    { limits: { maxStreamBufferBytes: Number.NaN } }
  ]
  for (const options of bad) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(mcpCapabilities, { server: toolsModule(), serverInfo: SERVER_INFO, ...options }) }, errors.FST_MCP_INVALID_OPTION, JSON.stringify(options))
    await app.close()
  }
})
