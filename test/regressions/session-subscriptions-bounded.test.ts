// Guards the fourth hostile review's legacy-session finding: a session could
// subscribe to 1000 URIs of 4096 characters, 4.3 MB of heap per session
// (measured), and `sessions.maxSessions` (10,000 by default) such sessions
// could be made by anyone (a caller without authorization is a digest of
// whatever `Authorization` header it sends): a remote heap exhaustion.
// Now a session's URIs add up to at most MAX_SESSION_URI_CHARS characters;
// the subscribe past it is answered -32602 with its id, and the session
// keeps what it had (an unsubscribe is never refused).
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineResources, defineTools } from '../../lib/index.js'
import { MAX_SESSION_URI_CHARS } from '../../lib/endpoint/legacy-sessions.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'

const server = {
  ...defineTools({ echo: { handler: () => ({ content: [] }) } }),
  ...defineResources({ note: { uri: 'notes://note/1', read: () => 'one' } })
}
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

async function start (t: Test): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server, serverInfo: SERVER_INFO, sessions: true })
  t.teardown(() => app.close())
  return app
}

async function openSession (app: FastifyInstance): Promise<string> {
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: HEADERS, payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } } })
  return reply.headers['mcp-session-id'] as string
}

async function rpc (app: FastifyInstance, session: string, id: number, method: string, uri: string): Promise<any> {
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: { ...HEADERS, 'mcp-session-id': session }, payload: { jsonrpc: '2.0', id, method, params: { uri } } })
  return reply.json()
}

/** A URI of 4000 characters, distinct by `i`. */
const longUri = (i: number): string => 'notes://' + String(i).padStart(6, '0') + 'u'.repeat(4000 - 14)

t.test('long URIs: subscribes stop at MAX_SESSION_URI_CHARS with -32602 and the id; unsubscribe still works', async (t) => {
  const app = await start(t)
  const session = await openSession(app)
  const fits = Math.floor(MAX_SESSION_URI_CHARS / 4000)
  for (let i = 0; i < fits; i++) {
    const answer = await rpc(app, session, 100 + i, 'resources/subscribe', longUri(i))
    t.strictSame(answer.result, {}, `subscribe ${i} within the bound`)
  }
  const refused = await rpc(app, session, 999, 'resources/subscribe', longUri(fits))
  t.equal(refused.id, 999)
  t.equal(refused.error?.code, -32602)
  t.match(refused.error?.message, /characters in all/)
  // The session kept its subscriptions: one unsubscribed makes room for the refused one.
  t.strictSame((await rpc(app, session, 1000, 'resources/unsubscribe', longUri(0))).result, {})
  t.strictSame((await rpc(app, session, 1001, 'resources/subscribe', longUri(fits))).result, {})
})
