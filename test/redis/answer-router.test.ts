/**
 * RedisAnswerRouter against a real redis-server: an answer POSTed to any
 * instance reaches the instance whose request waits for it; ids that name no
 * well-formed instance are dropped without touching Redis; a router routes
 * its own ids directly; Redis away: route rejects quickly.
 */
import t from 'tap'
import { RedisAnswerRouter, RedisConnection, RedisUnavailableError } from '../../lib/redis/index.js'
import { MemoryAnswerRouter } from '../../lib/parts/answer-router.js'
import type { JsonObject } from '../../lib/protocol/jsonrpc.js'
import { startRedisServer } from '../helpers/redis-server.js'

const redis = await startRedisServer()
t.teardown(redis.close)

async function until (condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

t.test('the memory router hands answers to its own instance', async (t) => {
  const router = new MemoryAnswerRouter()
  const got: JsonObject[] = []
  router.attach((a) => { got.push(a); return true })
  const id = router.requestId()
  t.match(id, /^[0-9a-f-]{36}$/)
  t.not(router.requestId(), id)
  await router.forward({ jsonrpc: '2.0', id, result: {} }, 'caller-1')
  t.same(got, [{ jsonrpc: '2.0', id, result: {} }])
  await router.close()
  await router.forward({ jsonrpc: '2.0', id, result: {} }, 'caller-1')
  t.equal(got.length, 1)
})

t.test('an answer reaches the instance that asked, from any other', async (t) => {
  const routers = [0, 1, 2].map(() => new RedisAnswerRouter({ url: redis.url, prefix: 'ans:' }))
  t.teardown(() => Promise.all(routers.map((r) => r.close())))
  const got: JsonObject[][] = [[], [], []]
  const callers: string[] = []
  routers.forEach((r, i) => r.attach((a, caller) => { got[i]!.push(a); if (i === 0) callers.push(caller); return true }))
  await Promise.all(routers.map((r) => r.ready()))

  const id = routers[0]!.requestId()
  t.match(id, /^[A-Za-z0-9_-]{16}\.[0-9a-f-]{36}$/)
  await routers[1]!.forward({ jsonrpc: '2.0', id, result: { action: 'accept' } }, 'caller-1')
  await routers[2]!.forward({ jsonrpc: '2.0', id, error: { code: -1, message: 'no' } }, 'caller-2')
  await until(() => got[0]!.length === 2, 'both answers at the asking instance')
  t.same(got[0], [{ jsonrpc: '2.0', id, result: { action: 'accept' } }, { jsonrpc: '2.0', id, error: { code: -1, message: 'no' } }])
  t.same([got[1], got[2]], [[], []], 'no other instance hears them')
  t.same(callers, ['caller-1', 'caller-2'], 'each answer arrives with the caller who POSTed it')

  // Its own id: handed over directly.
  const own = routers[2]!.requestId()
  await routers[2]!.forward({ jsonrpc: '2.0', id: own, result: {} }, 'caller-1')
  t.same(got[2], [{ jsonrpc: '2.0', id: own, result: {} }])
})

t.test('hostile ids reach nobody and cost no Redis round trip', async (t) => {
  const connection = new RedisConnection({ url: redis.url, prefix: 'hostile:' })
  const router = new RedisAnswerRouter(connection)
  t.teardown(() => router.close())
  const got: JsonObject[] = []
  router.attach((a) => { got.push(a); return true })
  await router.ready()
  await connection.close()
  // The connection is closed: any publish would reject, so resolving proves nothing was sent.
  for (const id of [7, null, '', 'no-dot', '.x', 'short.x', 'toolongtoolongtoolong.x', 'bad*chars*here!!.x', '../../../../etc.x']) {
    await router.forward({ jsonrpc: '2.0', id, result: {} } as JsonObject, 'caller-1')
  }
  t.same(got, [])
})

t.test('Redis away: routing an answer to another instance rejects quickly', async (t) => {
  const own = await startRedisServer()
  t.teardown(own.close)
  const a = new RedisAnswerRouter({ url: own.url })
  const b = new RedisAnswerRouter({ url: own.url, commandTimeoutMs: 500 })
  t.teardown(() => Promise.all([a.close(), b.close()]))
  a.attach(() => true)
  b.attach(() => true)
  await Promise.all([a.ready(), b.ready()])
  await own.stop()
  await new Promise((resolve) => setTimeout(resolve, 100))
  const started = Date.now()
  await t.rejects(b.forward({ jsonrpc: '2.0', id: a.requestId(), result: {} }, 'caller-1'), RedisUnavailableError)
  t.ok(Date.now() - started < 600, 'rejected quickly')
})
