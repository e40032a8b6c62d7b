/**
 * Issue 22: pub/sub is at most once, so an event published while Redis was
 * away could be missed by a listen stream for good. Now, once the bus is
 * back, every instance tells its own streams that what they follow may have
 * changed (`list_changed` for each kind a stream asked for, and
 * `resources/updated` for each of its subscriptions), and an instance that
 * could not send an event sends it again. Real listen streams, a real
 * redis-server, and a proxy that cuts a single instance away from it.
 */
import http from 'node:http'
import t from 'tap'
import { redisScale } from '../../lib/redis/index.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { delay, listenRequest, modernHeaders, post, readBody, SseReader, startApp } from '../streams/helpers.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const SECRET = 'bus-outage-request-state-secret-0123456789abcdef'
const server = {
  listTools: () => ({ tools: [] }),
  callTool: () => ({ content: [] }),
  listResources: () => ({ resources: [] }),
  readResource: () => ({ contents: [] })
}

async function open (port: number, id: string, filter: unknown, agent: http.Agent): Promise<SseReader> {
  const { res } = await post(port, listenRequest(id, filter), modernHeaders('subscriptions/listen'), agent)
  if (res.statusCode !== 200) throw new Error(`listen answered ${res.statusCode}: ${await readBody(res)}`)
  const reader = new SseReader(res)
  await reader.nextMessage()
  return reader
}

/** The messages a stream receives within `ms` (once `enough` came, only a short while more, for extras). */
async function drain (reader: SseReader, ms: number, enough = Infinity): Promise<any[]> {
  const out: any[] = []
  let deadline = Date.now() + ms
  for (;;) {
    if (out.length >= enough) deadline = Math.min(deadline, Date.now() + 300)
    const left = deadline - Date.now()
    if (left <= 0) return out
    const message = await reader.nextMessage(left).catch(() => undefined)
    if (message === undefined) return out
    out.push(message)
  }
}

function summary (messages: any[]): string[] {
  return messages.map((m) => `${String(m.method)}${m.params?.uri !== undefined ? ' ' + String(m.params.uri) : ''} (${String(m.params?._meta?.[SUB])})`).sort()
}

t.test('Redis restarted: every stream hears that what it follows may have changed', async (t) => {
  const redis = await startRedisServer()
  t.teardown(redis.close)
  const make = (): ReturnType<typeof startApp> => startApp({ server, limits: { listen: { keepAliveMs: 0 } }, requestState: { secret: SECRET }, scale: redisScale({ url: redis.url, prefix: 'gap:', commandTimeoutMs: 500 }) })
  const a = await make()
  const b = await make()
  t.teardown(async () => { await a.app.close(); await b.app.close() })
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const watch = await open(b.port, 'watch', { toolsListChanged: true, resourceSubscriptions: ['file:///a.txt', 'file:///b.txt'] }, agent)
  const lists = await open(b.port, 'lists', { resourcesListChanged: true }, agent)
  const quiet = await open(a.port, 'quiet-a', { toolsListChanged: true }, agent)

  await redis.stop()
  await delay(200)
  // Lost for B: published on A while nobody could carry it.
  t.equal(a.app.mcp.notifyToolsChanged(), 1, 'A\'s own stream hears at once')
  t.equal((await quiet.nextMessage()).method, 'notifications/tools/list_changed')
  await redis.restart()

  const heard = summary(await drain(watch, 8000, 4))
  t.ok(heard.includes('notifications/tools/list_changed (watch)'), `the tools change is not missed for good (${heard.join(', ')})`)
  t.ok(heard.includes('notifications/resources/updated file:///a.txt (watch)'), 'each subscribed resource may have changed')
  t.ok(heard.includes('notifications/resources/updated file:///b.txt (watch)'))
  t.notOk(heard.some((m) => m.startsWith('notifications/resources/list_changed')), 'nothing the stream did not ask for')
  t.same(summary(await drain(lists, 500)), ['notifications/resources/list_changed (lists)'], 'a stream asking for the resource list hears of it once')

  // The bus works as before afterwards: one notify, one notification.
  b.app.mcp.notifyResourceUpdated('file:///a.txt')
  t.same(summary(await drain(watch, 300)), ['notifications/resources/updated file:///a.txt (watch)'])
})

t.test('one instance cut off: what it could not send is sent again when it is back', async (t) => {
  const redis = await startRedisServer()
  t.teardown(redis.close)
  const proxy = await startTcpProxy(redis.port)
  t.teardown(proxy.close)
  const a = await startApp({ server, limits: { listen: { keepAliveMs: 0 } }, requestState: { secret: SECRET }, scale: redisScale({ url: proxy.url, prefix: 'cut:', commandTimeoutMs: 500 }) })
  const b = await startApp({ server, limits: { listen: { keepAliveMs: 0 } }, requestState: { secret: SECRET }, scale: redisScale({ url: redis.url, prefix: 'cut:', commandTimeoutMs: 500 }) })
  t.teardown(async () => { await a.app.close(); await b.app.close() })
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const onB = await open(b.port, 'on-b', { toolsListChanged: true, resourceSubscriptions: ['file:///changed', 'file:///other'] }, agent)

  proxy.cut()
  await delay(200)
  a.app.mcp.notifyResourceUpdated('file:///changed')
  a.app.mcp.notifyToolsChanged()
  await delay(300)
  t.same(await drain(onB, 300), [], 'B heard nothing while A was cut off')
  proxy.restore()

  const heard = summary(await drain(onB, 8000, 2))
  t.same(heard, ['notifications/resources/updated file:///changed (on-b)', 'notifications/tools/list_changed (on-b)'],
    'A sent both events again once back; B, never cut off, had nothing to re-read')
})
