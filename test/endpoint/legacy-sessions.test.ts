/**
 * Legacy `Mcp-Session-Id` sessions (`sessions: true`): issued at initialize,
 * resource subscriptions per session heard on the session's GET stream (the
 * official SDK client v1 end to end), the log level per session, and
 * hostile input: forged and cross-caller ids (404, nothing revealed), a
 * session deleted while its stream is open, ids replayed after DELETE and
 * after expiry (on POST, GET and DELETE), GET floods (held at the stream
 * caps, every stream released), 10,000 abandoned sessions (bounded in all
 * and per caller).
 */
import http, { type IncomingMessage } from 'node:http'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
import { defineResources, defineTools } from '../../lib/index.js'
import { MemorySessionStore } from '../../lib/parts/session-store.js'
import { delay, post, readBody, SseReader, startApp, type TestOptions } from '../streams/helpers.js'

const server = {
  ...defineTools({ echo: { handler: () => ({ content: [] }) } }),
  ...defineResources({ note: { uri: 'notes://note/1', read: () => 'one' } })
}

async function app (t: Test, options: Partial<TestOptions> = {}) {
  const started = await startApp({ server, sessions: true, limits: { listen: { keepAliveMs: 0 } }, ...options }, undefined, { forceCloseConnections: true })
  t.teardown(() => started.app.close())
  return started
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
const V = { 'mcp-protocol-version': '2025-11-25' }

async function initialize (port: number, headers: Record<string, string> = {}): Promise<{ session: string, result: any }> {
  const { res } = await post(port, INIT, headers)
  const body = JSON.parse(await readBody(res))
  return { session: res.headers['mcp-session-id'] as string, result: body.result }
}

async function rpc (port: number, session: string | undefined, method: string, params: Record<string, unknown> = {}, headers: Record<string, string> = {}): Promise<{ status: number, body: any }> {
  const { res } = await post(port, { jsonrpc: '2.0', id: 7, method, params }, { ...V, ...headers, ...(session === undefined ? {} : { 'mcp-session-id': session }) })
  const text = await readBody(res)
  return { status: res.statusCode as number, body: text === '' ? undefined : JSON.parse(text) }
}

function request (port: number, method: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/mcp', method, agent: false, headers }, resolve)
    req.on('error', reject)
    req.end()
  })
}

t.test('initialize issues a session; legacy resources.subscribe is advertised exactly with sessions', async (t) => {
  const { port } = await app(t)
  const { session, result } = await initialize(port)
  t.match(session, /^[A-Za-z0-9_-]{22}$/)
  t.strictSame(result.capabilities.resources, { listChanged: true, subscribe: true })
  const { port: without } = await app(t, { sessions: false })
  const plain = await initialize(without)
  t.equal(plain.session, undefined, 'no session without the option')
  t.strictSame(plain.result.capabilities.resources, { listChanged: true }, 'and no subscribe')
  t.equal((await rpc(without, undefined, 'resources/subscribe', { uri: 'notes://note/1' })).body.error.code, -32601)
})

t.test('official SDK client v1: subscribe, then resources/updated on its session\'s stream; unsubscribe stops it', async (t) => {
  const { app: fastify, port } = await app(t)
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' })
  const updates: string[] = []
  const { ResourceUpdatedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js')
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri) })
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`))
  await client.connect(transport)
  t.teardown(() => client.close())
  t.ok(transport.sessionId, 'the client keeps the session id')
  for (let i = 0; i < 250 && fastify.mcp.listenStreams === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  await client.subscribeResource({ uri: 'notes://note/1' })
  fastify.mcp.notifyResourceUpdated('notes://note/2')
  fastify.mcp.notifyResourceUpdated('notes://note/1')
  for (let i = 0; i < 250 && updates.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  t.strictSame(updates, ['notes://note/1'], 'only what the session subscribed to')
  await client.unsubscribeResource({ uri: 'notes://note/1' })
  t.equal(fastify.mcp.notifyResourceUpdated('notes://note/1'), 0)
})

t.test('the log level belongs to the session', async (t) => {
  const logging = {
    ...defineTools({}),
    listTools: () => ({ tools: [] }),
    callTool: (_p: unknown, ctx: { log: (level: 'info', data: unknown) => void }) => { ctx.log('info', 'hello'); return { content: [] } }
  }
  const { port } = await app(t, { server: logging as never })
  const a = await initialize(port)
  const b = await initialize(port)
  t.strictSame((await rpc(port, a.session, 'logging/setLevel', { level: 'info' })).body.result, {})
  const { res: withLevel } = await post(port, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'x' } }, { ...V, 'mcp-session-id': a.session })
  t.match(await readBody(withLevel), /notifications\/message/, 'session a hears its log')
  const { res: other } = await post(port, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'x' } }, { ...V, 'mcp-session-id': b.session })
  t.notMatch(await readBody(other), /notifications\/message/, 'session b of the same caller set none')
})

t.test('hostile ids: forged, malformed, another caller\'s: 404 Session not found, nothing revealed', async (t) => {
  const { port } = await app(t)
  const mine = await initialize(port, { authorization: 'Bearer alice' })
  for (const forged of ['AAAAAAAAAAAAAAAAAAAAAA', 'not a session', 'x'.repeat(5000)]) {
    const answer = await rpc(port, forged, 'tools/list', {}, { authorization: 'Bearer alice' })
    t.equal(answer.status, 404)
    t.strictSame(answer.body, { jsonrpc: '2.0', id: 7, error: { code: -32001, message: 'Session not found' } })
  }
  const stolen = await rpc(port, mine.session, 'tools/list', {}, { authorization: 'Bearer mallory' })
  t.equal(stolen.status, 404, 'another caller\'s id is answered as unknown')
  const get = await request(port, 'GET', { accept: 'text/event-stream', ...V, 'mcp-session-id': mine.session, authorization: 'Bearer mallory' })
  t.equal(get.statusCode, 404, 'nor can it open the session\'s stream')
  await readBody(get)
  const del = await request(port, 'DELETE', { ...V, 'mcp-session-id': mine.session, authorization: 'Bearer mallory' })
  t.equal(del.statusCode, 404, 'nor end it')
  await readBody(del)
  t.equal((await rpc(port, mine.session, 'tools/list', {}, { authorization: 'Bearer alice' })).status, 200, 'the owner still can')
})

t.test('DELETE ends the session and its open stream; the id is then 404', async (t) => {
  const { app: fastify, port } = await app(t)
  const { session } = await initialize(port)
  const res = await request(port, 'GET', { accept: 'text/event-stream', ...V, 'mcp-session-id': session })
  t.equal(res.statusCode, 200)
  const stream = new SseReader(res)
  await stream.next()
  t.equal(fastify.mcp.listenStreams, 1)
  const del = await request(port, 'DELETE', { ...V, 'mcp-session-id': session })
  t.equal(del.statusCode, 204)
  await stream.ended
  t.equal(fastify.mcp.listenStreams, 0, 'its stream ended')
  t.equal((await rpc(port, session, 'tools/list')).status, 404)
  const again = await request(port, 'DELETE', { ...V, 'mcp-session-id': session })
  t.equal(again.statusCode, 404)
  await readBody(again)
})

/** Every way a client can name a session: POST, subscribe, GET and DELETE; each must say 404. */
async function replay (t: Test, port: number, session: string, why: string): Promise<void> {
  t.equal((await rpc(port, session, 'tools/list')).status, 404, `${why}: POST`)
  t.equal((await rpc(port, session, 'resources/subscribe', { uri: 'notes://note/1' })).status, 404, `${why}: subscribe`)
  const get = await request(port, 'GET', { accept: 'text/event-stream', ...V, 'mcp-session-id': session })
  t.equal(get.statusCode, 404, `${why}: GET opens no stream`)
  await readBody(get)
  const del = await request(port, 'DELETE', { ...V, 'mcp-session-id': session })
  t.equal(del.statusCode, 404, `${why}: DELETE`)
  await readBody(del)
}

t.test('replayed ids: after DELETE and after expiry, every use answers 404, again and again (nothing revives the session)', async (t) => {
  // Wide margins: a loaded machine may take a while between two requests.
  const { app: fastify, port } = await app(t, { sessions: { idleTimeoutMs: 1500 } })
  const ended = (await initialize(port)).session
  const expired = (await initialize(port)).session
  const del = await request(port, 'DELETE', { ...V, 'mcp-session-id': ended })
  t.equal(del.statusCode, 204)
  await readBody(del)
  for (let round = 0; round < 2; round++) await replay(t, port, ended, `after DELETE, replay ${round + 1}`)
  await delay(2000)
  for (let round = 0; round < 2; round++) await replay(t, port, expired, `after expiry, replay ${round + 1}`)
  t.equal(fastify.mcp.listenStreams, 0, 'no stream was opened for a dead session')
})

t.test('GET floods: many GETs by one caller, and by many callers, are held at the stream caps; every stream is released', async (t) => {
  const { app: fastify, port } = await app(t, { limits: { listen: { keepAliveMs: 0, maxStreams: 20, maxStreamsPerCaller: 5 } } })
  const { session } = await initialize(port)
  const stream = { accept: 'text/event-stream', ...V }
  const statuses = (responses: IncomingMessage[]) => responses.reduce<Record<number, number>>((counts, res) => ({ ...counts, [res.statusCode as number]: (counts[res.statusCode as number] ?? 0) + 1 }), {})
  // One caller, with and without its session: one cap for both.
  const oneCaller = await Promise.all(Array.from({ length: 100 }, (_, i) => request(port, 'GET', i % 2 === 0 ? { ...stream, 'mcp-session-id': session } : stream)))
  t.strictSame(statuses(oneCaller), { 200: 5, 429: 95 }, 'one caller holds at most maxStreamsPerCaller')
  const manyCallers = await Promise.all(Array.from({ length: 100 }, (_, i) => request(port, 'GET', { ...stream, authorization: `Bearer flood-${i}` })))
  t.strictSame(statuses(manyCallers), { 200: 15, 503: 85 }, 'all callers together at most maxStreams')
  t.equal(fastify.mcp.listenStreams, 20)
  const all = [...oneCaller, ...manyCallers]
  await Promise.all(all.filter((res) => res.statusCode !== 200).map(readBody))
  for (const res of all) res.destroy()
  for (let i = 0; i < 250 && fastify.mcp.listenStreams > 0; i++) await delay(20)
  t.equal(fastify.mcp.listenStreams, 0, 'every stream of the flood released')
  const after = await request(port, 'GET', { ...stream, 'mcp-session-id': session })
  t.equal(after.statusCode, 200, 'the caller can open a stream again')
  after.destroy()
})

t.test('a session that makes room for a newer one ends with its open stream', async (t) => {
  const { app: fastify, port } = await app(t, { sessions: { maxSessionsPerCaller: 1 } })
  const { session: first } = await initialize(port)
  const res = await request(port, 'GET', { accept: 'text/event-stream', ...V, 'mcp-session-id': first })
  t.equal(res.statusCode, 200)
  const stream = new SseReader(res)
  await stream.next()
  t.equal(fastify.mcp.listenStreams, 1)
  const { session: second } = await initialize(port)
  t.not(second, first)
  await stream.ended
  t.equal(fastify.mcp.listenStreams, 0, 'the stream of the session that made room ended')
  t.equal((await rpc(port, first, 'tools/list')).status, 404, 'its id is 404: the client initializes again')
  t.equal((await rpc(port, second, 'tools/list')).status, 200)
})

t.test('an idle session expires', async (t) => {
  // Wide margins: a loaded machine may take a while between two requests.
  const { port } = await app(t, { sessions: { idleTimeoutMs: 1500 } })
  const { session } = await initialize(port)
  t.equal((await rpc(port, session, 'tools/list')).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 2000))
  t.equal((await rpc(port, session, 'tools/list')).status, 404, 'the client initializes again')
})

t.test('10,000 sessions opened and abandoned stay within the bounds, in all and per caller', async (t) => {
  const store = new MemorySessionStore()
  const limits = { maxSessions: 1000, maxSessionsPerCaller: 100, idleTimeoutMs: 60_000 }
  for (let i = 0; i < 10_000; i++) await store.create(`s${i}`, 'one-caller', limits)
  t.equal(store.size, 100, 'one caller holds at most its share')
  for (let i = 0; i < 10_000; i++) await store.create(`t${i}`, `caller-${i}`, limits)
  t.equal(store.size, 1000, 'all callers together at most maxSessions')
  t.ok(await store.touch('t9999', 'caller-9999', limits), 'the newest live on')
  t.equal(await store.touch('s0', 'one-caller', limits), undefined, 'the oldest made room')

  // Through the endpoint: one caller opening sessions without end keeps only its share.
  const { port } = await app(t, { sessions: { maxSessionsPerCaller: 3 } })
  const opened = []
  for (let i = 0; i < 20; i++) opened.push((await initialize(port)).session)
  const live = []
  for (const session of opened) if ((await rpc(port, session, 'ping')).status === 200) live.push(session)
  t.strictSame(live, opened.slice(-3), 'the last three live on')
})
