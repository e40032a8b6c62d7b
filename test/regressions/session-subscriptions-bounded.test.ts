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
import { mcpClient } from '../helpers/mcp-inject.js'

const server = {
  ...defineTools({ echo: { handler: () => ({ content: [] }) } }),
  ...defineResources({ note: { uri: 'notes://note/1', read: () => 'one' } })
}
const VERSION = '2025-11-25'

async function start (t: Test): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server, serverInfo: SERVER_INFO, sessions: true })
  t.teardown(() => app.close())
  return app
}

/** A session on `app`, and a call in it answering the parsed body (each answer checked against the spec's schema). */
async function openSession (t: Test, app: FastifyInstance): Promise<(id: number, method: string, uri: string) => Promise<any>> {
  const client = mcpClient(t, app)
  const session = (await client.initialize(VERSION)).headers['mcp-session-id'] as string
  return async (id, method, uri) => (await client.legacy(method, { uri }, { id, protocolVersion: VERSION, headers: { 'mcp-session-id': session } })).json
}

/** A URI of 4000 characters, distinct by `i`. */
const longUri = (i: number): string => 'notes://' + String(i).padStart(6, '0') + 'u'.repeat(4000 - 14)

t.test('long URIs: subscribes stop at MAX_SESSION_URI_CHARS with -32602 and the id; unsubscribe still works', async (t) => {
  const app = await start(t)
  const rpc = await openSession(t, app)
  const fits = Math.floor(MAX_SESSION_URI_CHARS / 4000)
  for (let i = 0; i < fits; i++) {
    const answer = await rpc(100 + i, 'resources/subscribe', longUri(i))
    t.strictSame(answer.result, {}, `subscribe ${i} within the bound`)
  }
  const refused = await rpc(999, 'resources/subscribe', longUri(fits))
  t.equal(refused.id, 999)
  t.equal(refused.error?.code, -32602)
  t.match(refused.error?.message, /characters in all/)
  // The session kept its subscriptions: one unsubscribed makes room for the refused one.
  t.strictSame((await rpc(1000, 'resources/unsubscribe', longUri(0))).result, {})
  t.strictSame((await rpc(1001, 'resources/subscribe', longUri(fits))).result, {})
})
