// Guards: a legacy server-to-client question belongs to the caller it was
// asked of (`callerOf`). An answer POSTed with another credential, or none,
// is acknowledged like any unknown id and settles nothing; the asked caller's
// own answer still completes the call.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { httpPost } from '../helpers/mcp-inject.js'
import { accept, clientRequestModule, type Probe } from '../client-requests/fixtures.js'
import { legacyHeaders, openCall } from '../client-requests/stream-call.js'

const VERSION = '2025-11-25'

t.test("another caller's answer to a legacy question settles nothing", async (t) => {
  const probe: Probe = { seen: [], runs: {}, question: 'Q1' }
  const app = Fastify()
  await app.register(mcpCapabilities, { server: clientRequestModule(probe), serverInfo: SERVER_INFO })
  const url = `${await app.listen({ host: '127.0.0.1', port: 0 })}/mcp`
  t.teardown(() => app.close())
  const alice = { ...legacyHeaders(VERSION), authorization: 'Bearer alice-token' }
  const mallory = { ...legacyHeaders(VERSION), authorization: 'Bearer mallory-token' }

  const call = await openCall(url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'greet', arguments: {} } }, alice)
  const question = await call.next()
  t.equal(question?.method, 'elicitation/create', 'alice is asked')

  for (const [who, headers] of [['mallory', mallory], ['an anonymous client', legacyHeaders(VERSION)]] as const) {
    const forged = await httpPost(t, url, { jsonrpc: '2.0', id: question.id, result: accept({ name: 'Mallory' }) }, headers)
    t.equal(forged.status, 202, `${who}'s answer is acknowledged like an unknown id`)
  }
  // Had either answer settled the question, the call's result would already be on the stream, naming Mallory.
  await new Promise((resolve) => setTimeout(resolve, 300))

  const own = await httpPost(t, url, { jsonrpc: '2.0', id: question.id, result: accept({ name: 'Alice' }) }, alice)
  t.equal(own.status, 202)
  const final = await call.next()
  t.equal(final?.id, 1)
  t.match(JSON.stringify(final?.result), /Alice/, "alice's answer completes the call")
  t.notMatch(JSON.stringify(final?.result), /Mallory/)
})
