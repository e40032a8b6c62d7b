/**
 * The legacy standalone stream (GET with Accept: text/event-stream) over real
 * sockets: what it carries (only advertised list kinds, no JSON-RPC response,
 * every message valid against the 2025-11-25 schema), the priming event and
 * the "may have changed" burst on a resumed stream, its bounds (shared with
 * listen streams, per caller and in all), the stuck reader, authorization,
 * and the refusals (no Accept, a modern or unknown version, a modern-only
 * deployment).
 */
import http, { type IncomingMessage } from 'node:http'
import t, { type Test } from 'tap'
import { definePrompts, defineTools } from '../../lib/index.js'
import { specValidator } from '../helpers/spec-schema.js'
import { delay, listenRequest, modernHeaders, post, readBody, SseReader, startApp, type TestOptions } from './helpers.js'

const server = {
  ...defineTools({ echo: { handler: () => ({ content: [] }) } }),
  ...definePrompts({ greet: { handler: () => 'hi' } })
}
const validate = specValidator('2025-11-25', 'ServerNotification')

function get (port: number, headers: Record<string, string>, agent: http.Agent | false = false): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method: 'GET', agent, headers }, resolve)
    req.on('error', reject)
    req.end()
  })
}

const STREAM = { accept: 'text/event-stream', 'mcp-protocol-version': '2025-11-25' }

async function open (t: Test, port: number, headers: Record<string, string> = STREAM): Promise<SseReader> {
  const res = await get(port, headers)
  t.teardown(() => res.destroy())
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/event-stream/)
  return new SseReader(res)
}

async function app (t: Test, options: Partial<TestOptions> = {}) {
  const started = await startApp({ server, limits: { listen: { keepAliveMs: 0 } }, ...options })
  t.teardown(() => started.app.close())
  return started
}

t.test('a 2025-11-25 stream is primed, then hears list changes of every instance-advertised kind, with ids and no response', async (t) => {
  const { app: fastify, port } = await app(t)
  const stream = await open(t, port)
  const priming = await stream.next()
  t.equal(priming.data, undefined, 'the priming event carries no data')
  t.equal(priming.id, '0', 'but an id to resume with')
  t.equal(fastify.mcp.listenStreams, 1, 'counted with the listen streams')

  t.equal(fastify.mcp.notifyToolsChanged(), 1)
  t.equal(fastify.mcp.notifyPromptsChanged(), 1)
  t.equal(fastify.mcp.notifyResourcesChanged(), 0, 'resources are not advertised: not sent')
  const tools = await stream.next()
  const prompts = await stream.next()
  t.strictSame(tools.data, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
  t.strictSame(prompts.data, { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' })
  t.strictSame([tools.id, prompts.id], ['1', '2'])
  for (const event of [tools, prompts]) t.ok(validate(event.data), 'a valid 2025-11-25 ServerNotification')

  // A runtime change (the documented way) reaches the stream too.
  await fastify.mcp.tools.disable('echo')
  t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed')
})

t.test('an older client gets no priming event (empty data would be an error to it), only notifications with ids', async (t) => {
  const { app: fastify, port } = await app(t)
  const stream = await open(t, port, { accept: 'text/event-stream', 'mcp-protocol-version': '2025-06-18' })
  await delay(50)
  t.equal(stream.events.length, 0)
  fastify.mcp.notifyToolsChanged()
  const event = await stream.next()
  t.strictSame([event.id, event.data.method], ['0', 'notifications/tools/list_changed'])
})

t.test('a resumed stream (Last-Event-ID) is told at once that every list it hears may have changed', async (t) => {
  const { port } = await app(t)
  const stream = await open(t, port, { ...STREAM, 'last-event-id': 'anything the client echoes' })
  t.equal((await stream.next()).id, '0', 'primed')
  t.strictSame([(await stream.nextMessage()).method, (await stream.nextMessage()).method],
    ['notifications/tools/list_changed', 'notifications/prompts/list_changed'])
})

t.test('closing the server ends the stream without a message', async (t) => {
  const { app: fastify, port } = await app(t)
  const stream = await open(t, port)
  await stream.next()
  await fastify.close()
  await stream.ended
  t.equal(stream.events.length, 1, 'nothing after the priming event')
  t.equal(stream.rest, '', 'well framed')
})

t.test('bounds are the listen streams\' bounds: per caller (429) and in all (503), shared by both kinds of stream', async (t) => {
  const { app: fastify, port } = await app(t, { limits: { listen: { keepAliveMs: 0, maxStreams: 3, maxStreamsPerCaller: 2 } } })
  await open(t, port)
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const { res: listen } = await post(port, listenRequest('L', { toolsListChanged: true }), modernHeaders('subscriptions/listen'), agent)
  t.teardown(() => listen.destroy())
  t.equal(listen.statusCode, 200)
  const refused = await get(port, STREAM)
  t.equal(refused.statusCode, 429)
  t.strictSame(JSON.parse(await readBody(refused)).error, { code: -32000, message: 'Too many open listen streams for this caller; close one first', data: { limit: 2, scope: 'caller' } })
  await open(t, port, { ...STREAM, authorization: 'Bearer another-caller' })
  const full = await get(port, { ...STREAM, authorization: 'Bearer a-third-caller' })
  t.equal(full.statusCode, 503)
  await readBody(full)
  t.equal(fastify.mcp.listenStreams, 3)
})

t.test('a client that never reads is dropped at maxStreamBufferBytes, not buffered without end', async (t) => {
  const { app: fastify, port } = await app(t, { limits: { maxStreamBufferBytes: 4096, listen: { keepAliveMs: 0 } } })
  const res = await get(port, STREAM)
  t.teardown(() => res.destroy())
  res.pause()
  // The socket buffers take some; the stream's own bound takes the rest.
  for (let i = 0; i < 20_000 && fastify.mcp.listenStreams > 0; i++) {
    fastify.mcp.notifyToolsChanged()
    if (i % 500 === 0) await delay(1)
  }
  await delay(20)
  t.equal(fastify.mcp.listenStreams, 0, 'dropped')
})

t.test('refusals: no Accept for a stream (406), a modern or unknown version, a modern-only deployment (405)', async (t) => {
  const { port } = await app(t)
  const noAccept = await get(port, { accept: 'application/json', 'mcp-protocol-version': '2025-11-25' })
  t.equal(noAccept.statusCode, 406)
  t.equal(JSON.parse(await readBody(noAccept)).error.code, -32600)
  const modern = await get(port, { accept: 'text/event-stream', 'mcp-protocol-version': '2026-07-28' })
  t.equal(modern.statusCode, 405)
  t.equal(modern.headers.allow, 'POST')
  await readBody(modern)
  const unknown = await get(port, { accept: 'text/event-stream', 'mcp-protocol-version': '1999-01-01' })
  t.equal(unknown.statusCode, 400)
  await readBody(unknown)

  const { port: modernOnly } = await app(t, { era: 'modern' })
  const refused = await get(modernOnly, STREAM)
  t.equal(refused.statusCode, 405)
  t.equal(refused.headers.allow, 'POST', 'the answer clients read as "no stream"')
  await readBody(refused)
})

t.test('with authorization, GET needs a valid token as POST does, and counts against that caller', async (t) => {
  const { app: fastify, port } = await app(t, {
    authorization: {
      resource: 'http://127.0.0.1/mcp',
      authorizationServers: ['http://127.0.0.1:1'],
      verifyAccessToken: (token) => token === 'good' || token === 'other' ? { subject: token, expiresAt: Math.floor(Date.now() / 1000) + 60 } : null
    },
    limits: { listen: { keepAliveMs: 0, maxStreamsPerCaller: 1 } }
  })
  const anonymous = await get(port, STREAM)
  t.equal(anonymous.statusCode, 401)
  t.match(anonymous.headers['www-authenticate'], /^Bearer /)
  await readBody(anonymous)
  const stream = await open(t, port, { ...STREAM, authorization: 'Bearer good' })
  await stream.next()
  const second = await get(port, { ...STREAM, authorization: 'Bearer good' })
  t.equal(second.statusCode, 429, 'the bound is per principal')
  await readBody(second)
  await open(t, port, { ...STREAM, authorization: 'Bearer other' })
  t.equal(fastify.mcp.listenStreams, 2)
})
