import { Redis } from 'ioredis'
import t from 'tap'
import { RedisTaskStore, redisTaskStore } from '../../lib/redis/redis-task-store.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { LIMITS, taskStoreContract } from '../parts/task-store-contract.js'

const server = await startRedisServer()
const client = new Redis(server.url, { lazyConnect: false, maxRetriesPerRequest: 1 })
t.teardown(async () => {
  client.disconnect()
  await server.close()
})

let n = 0
// Each test gets its own key prefix on the one server.
taskStoreContract(t, (limits) => new RedisTaskStore({ client, prefix: `test${++n}:` }, limits))

t.test('redis store: keys live under the prefix and expire with the task', async (t) => {
  const store = new RedisTaskStore({ client, prefix: 'ttl:' }, { ...LIMITS, ttlMs: 5000 })
  const made = await store.create('alice')
  if (!made.ok) throw new Error('refused')
  const id = made.task.taskId
  await store.ask(id, 'q', { method: 'roots/list' })
  await store.answer(id, 'alice', { q: { roots: [] } })
  const before = new Set(await client.keys('*'))
  const keys = await client.keys('{ttl:tasks}:*')
  t.ok(keys.length >= 5, `the store's keys are under its prefix, in one hash tag (${keys.length})`)
  const extra = new RedisTaskStore({ client, prefix: 'ttl2:' }, LIMITS)
  await extra.create('alice')
  const added = (await client.keys('*')).filter((key) => !before.has(key))
  t.ok(added.length > 0 && added.every((key) => key.startsWith('{ttl2:tasks}:')), 'a store adds keys under its own prefix only')
  for (const key of [`{ttl:tasks}:task:${id}`, `{ttl:tasks}:task:${id}:ans`]) {
    const pttl = await client.pttl(key)
    t.ok(pttl > 0 && pttl <= 5000, `${key} expires with the task (${pttl} ms left)`)
  }
  t.notOk(JSON.stringify(keys).includes('alice'), 'owners appear in key names only as digests')
})

t.test('redis store: a second store on the same Redis sees the same tasks (two instances)', async (t) => {
  const other = new Redis(server.url, { maxRetriesPerRequest: 1 })
  t.teardown(() => other.disconnect())
  const one = new RedisTaskStore({ client, prefix: 'shared:' }, LIMITS)
  const two = new RedisTaskStore({ client: other, prefix: 'shared:' }, LIMITS)
  const made = await one.create('alice')
  if (!made.ok) throw new Error('refused')
  const id = made.task.taskId
  t.match(await two.get(id, 'alice'), { taskId: id, status: 'working' })
  await one.ask(id, 'q', { method: 'roots/list' })
  t.match(await two.answer(id, 'alice', { q: { roots: [] } }), { ok: true, accepted: ['q'] })
  t.strictSame(await one.takeAnswers(id), { q: { roots: [] } })
  t.match(await two.cancel(id, 'alice', 'stop'), { changed: true })
  t.match(await one.complete(id, { content: [] }), { changed: false, task: { status: 'cancelled' } })
})

t.test('redisTaskStore checks its options', async (t) => {
  t.throws(() => redisTaskStore(null as never), /expected a RedisConnection/)
  t.throws(() => redisTaskStore({} as never)(LIMITS), /exactly one of "url"/)
  t.throws(() => redisTaskStore({ client, prefix: 'app{1}:' })(LIMITS), /must not contain "\{" or "\}"/, 'a prefix may not bring its own hash tag')
  t.type(redisTaskStore({ client }), 'function')
})
