// Guards a finding the fourth hostile review left open: `logging/setLevel` in
// a legacy session that ended while the request was served (expired, ended
// by a DELETE on another instance, evicted to make room) was answered with
// an empty result although no level was kept anywhere: the client believed
// it would get log messages and got none. It is now answered -32001
// "Session not found" with the request's id, as `resources/subscribe` is in
// the same case and any request naming an ended session is: the client
// initializes again.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { MemorySessionStore, type SessionLimits, type SessionRecord } from '../../lib/parts/session-store.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const VERSION = '2025-11-25'

/** A store whose session ends between the request's lookup and its update, as one that expires or is deleted elsewhere then does. */
class EndingStore extends MemorySessionStore {
  endOnUpdate = false
  override async update (id: string, caller: string, change: (record: SessionRecord) => SessionRecord, limits: SessionLimits): Promise<SessionRecord | undefined> {
    if (this.endOnUpdate) await this.delete(id, caller)
    return await super.update(id, caller, change, limits)
  }
}

t.test('logging/setLevel in a session that ended meanwhile: -32001 with the id, and no level kept', async (t) => {
  const store = new EndingStore()
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: defineTools({ echo: { handler: () => ({ content: [] }) } }),
    serverInfo: SERVER_INFO,
    sessions: true,
    scale: { sessionStore: store }
  })
  t.teardown(() => app.close())
  const client = mcpClient(t, app)
  const session = (await client.initialize(VERSION)).headers['mcp-session-id'] as string
  t.type(session, 'string', 'a session was issued')
  const inSession = { protocolVersion: VERSION, headers: { 'mcp-session-id': session } }

  // While the session lives, the level is kept and answered with an empty result.
  t.strictSame((await client.legacy('logging/setLevel', { level: 'info' }, { id: 1, ...inSession })).json.result, {}, 'set while the session lives')

  store.endOnUpdate = true
  const answer = (await client.legacy('logging/setLevel', { level: 'debug' }, { id: 2, ...inSession })).json
  t.equal(answer.id, 2, 'answered with the request\'s id')
  t.equal(answer.error?.code, -32001, 'Session not found')
  t.notOk('result' in answer, 'not answered as if the level were kept')

  // The session is gone for every later request too.
  store.endOnUpdate = false
  const after = await client.legacy('tools/list', {}, { id: 3, ...inSession })
  t.equal(after.status, 404, 'a later request in that session is answered 404')
})
