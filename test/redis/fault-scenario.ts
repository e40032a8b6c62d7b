/**
 * Redis lost while serving, and back, with two endpoint instances on a real
 * redis-server that the test stops and restarts on its port: nothing
 * crashes or hangs, requests that need Redis get a well-formed error at once,
 * listen streams stay open and hear events again once Redis is back, and
 * everything works again without a restart. Run on one Redis (faults.test.ts)
 * and on a Redis Cluster (cluster.test.ts).
 */
import http from 'node:http'
import type { Test } from 'tap'
import { type RedisConnectionOptions, redisScale } from '../../lib/redis/index.js'
import type { HandlerContext } from '../../lib/index.js'
import { delay, listenRequest, modernHeaders, post, readBody, SseReader, startApp } from '../streams/helpers.js'

const LEGACY = { 'mcp-protocol-version': '2025-11-25' }
const server = {
  listTools: () => ({ tools: [{ name: 'ask', inputSchema: { type: 'object' } }] }),
  async callTool (_params: unknown, ctx: HandlerContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: {} } })
    return { content: [{ type: 'text', text: answer.action }] }
  },
  setLogLevel: () => ({})
}

/** Where the scenario's instances meet: a Redis (or cluster) the scenario can take away and bring back. */
export interface FaultBackend {
  /** Connection options for `redisScale()` (e.g. `{ url }` or `{ cluster: { nodes } }`). */
  where: RedisConnectionOptions
  stop: () => Promise<void>
  restart: () => Promise<void>
}

/** The scenario, on `backend`. */
export async function redisLostAndBack (t: Test, backend: FaultBackend): Promise<void> {
  const make = (): ReturnType<typeof startApp> => startApp({
    server,
    requestState: { secret: 'faults-request-state-secret-0123456789abcdef' },
    scale: redisScale({ ...backend.where, prefix: 'faults:', commandTimeoutMs: 500 }),
    limits: { listen: { keepAliveMs: 0 } }
  })
  const a = await make()
  const b = await make()
  t.teardown(async () => { await a.app.close(); await b.app.close() })
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())

  const { res } = await post(b.port, listenRequest('on-b', { toolsListChanged: true }), modernHeaders('subscriptions/listen'), agent)
  const onB = new SseReader(res)
  t.equal((await onB.nextMessage()).method, 'notifications/subscriptions/acknowledged')
  const local = new SseReader((await post(a.port, listenRequest('on-a', { toolsListChanged: true }), modernHeaders('subscriptions/listen'), agent)).res)
  await local.nextMessage()

  // A legacy request on A waits for the client's answer.
  const call = await post(a.port, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'ask', arguments: {} } }, LEGACY, agent)
  const asking = new SseReader(call.res)
  const ask = await asking.nextMessage()
  t.equal(ask.method, 'elicitation/create')

  await backend.stop()
  await delay(100)

  t.equal(a.app.mcp.notifyToolsChanged(), 1, 'a notify still reaches this instance\'s own streams')
  t.equal((await local.nextMessage()).method, 'notifications/tools/list_changed')

  let started = Date.now()
  const lost = await post(b.port, { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: {} } }, LEGACY, agent)
  const lostBody = await readBody(lost.res)
  t.equal(lost.res.statusCode, 503, 'an answer that cannot be routed is not accepted')
  t.match(JSON.parse(lostBody), { jsonrpc: '2.0', id: null, error: { code: -32603, message: /send it again/ } }, 'with a JSON-RPC body')
  t.ok(Date.now() - started < 1_000, `answered quickly (${Date.now() - started} ms)`)

  started = Date.now()
  const level = await post(b.port, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'info' } }, LEGACY, agent)
  t.match(JSON.parse(await readBody(level.res)), { jsonrpc: '2.0', id: 3, error: { code: -32603 } }, 'setLevel, which needs the bus, gets a JSON-RPC error')
  t.ok(Date.now() - started < 1_000, 'quickly')

  const discover = await post(b.port, { jsonrpc: '2.0', id: 4, method: 'server/discover', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }, modernHeaders('server/discover'), agent)
  t.equal(discover.res.statusCode, 200, 'requests that do not need Redis are served as usual')
  await readBody(discover.res)
  t.equal(b.app.mcp.listenStreams, 1, 'the listen stream on B stays open')

  await backend.restart()
  // B's bus is back: it tells its stream the tool list may have changed, with no new notify.
  t.match(await onB.nextMessage(10_000), { method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'on-b' } } },
    'the stream held through the outage hears that the list may have changed')
  // And hears new events: notify until B hears (bounded).
  let heard: any
  for (let i = 0; i < 100 && heard === undefined; i++) {
    a.app.mcp.notifyToolsChanged()
    heard = await onB.nextMessage(100).catch(() => undefined)
  }
  t.match(heard, { method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'on-b' } } },
    'the stream held through the outage hears events again')

  // The answer, sent again once Redis is back, reaches the waiting request.
  let accepted = false
  for (let i = 0; i < 50 && !accepted; i++) {
    const again = await post(b.port, { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: {} } }, LEGACY, agent)
    accepted = again.res.statusCode === 202
    await readBody(again.res)
    if (!accepted) await delay(50)
  }
  t.ok(accepted, 'the answer is accepted again')
  t.same(await asking.nextMessage(), { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'accept' }] } }, 'and completes the request that waited')
}
