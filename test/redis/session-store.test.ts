/**
 * The session store contract (test/parts/session-store-contract.ts) run
 * against the three stores: memory, one Redis, and a three-master Redis
 * Cluster (its keys in one slot); then what only Redis shows: key names,
 * expiry, and 10,000 sessions opened and abandoned staying within bounds.
 */
import { randomBytes } from 'node:crypto'
import { Cluster, Redis } from 'ioredis'
import t from 'tap'
import { MemorySessionStore } from '../../lib/parts/session-store.js'
import { RedisSessionStore } from '../../lib/redis/redis-session-store.js'
import { SESSION_LIMITS, sessionStoreContract } from '../parts/session-store-contract.js'
import { startRedisCluster } from '../helpers/redis-cluster.js'
import { startRedisServer } from '../helpers/redis-server.js'

const server = await startRedisServer()
const client = new Redis(server.url, { maxRetriesPerRequest: 1 })
// Every store given this client watches it (a RedisConnection each): more than ten stores here.
client.setMaxListeners(100)
const cluster = await startRedisCluster()
const clusterNodes = cluster.urls.map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) }))
const clusterClient = new Cluster(clusterNodes)
t.teardown(async () => {
  client.disconnect()
  clusterClient.disconnect()
  await server.close()
  await cluster.close()
})

const newId = (): string => randomBytes(16).toString('base64url')

t.test('memory', async (t) => {
  sessionStoreContract(t, () => new MemorySessionStore(), false)
})

t.test('redis', async (t) => {
  sessionStoreContract(t, (space) => new RedisSessionStore({ client, prefix: space }), true)
})

t.test('redis cluster', async (t) => {
  // A connection of its own per store, made from the nodes as an app would.
  sessionStoreContract(t, (space) => new RedisSessionStore({ cluster: { nodes: cluster.urls }, prefix: space }), true)
})

t.test('redis: keys under one hash tag, callers only as digests, every key expiring', async (t) => {
  const store = new RedisSessionStore({ client, prefix: 'keys:' })
  t.teardown(() => store.close())
  const limits = { ...SESSION_LIMITS, idleTimeoutMs: 5000 }
  await store.create(newId(), 'alice@example.com', limits)
  await store.create(newId(), 'bob@example.com', limits)
  const keys = await client.keys('*keys:*')
  t.ok(keys.length >= 4 && keys.every((key) => key.startsWith('{keys:sessions}:')), `under {keys:sessions}: (${keys.join(', ')})`)
  t.notOk(keys.join(' ').includes('example.com'), 'no caller name in a key')
  for (const key of keys.filter((k) => !k.endsWith(':all'))) {
    const pttl = await client.pttl(key)
    t.ok(pttl > 0 && pttl <= 5000, `${key} expires (${pttl} ms)`)
  }
})

t.test('redis cluster: every key of the store in one slot', async (t) => {
  const store = new RedisSessionStore({ cluster: { nodes: cluster.urls }, prefix: 'slots:' })
  t.teardown(() => store.close())
  for (const caller of ['alice', 'bob', 'carol', 'dave']) await store.create(newId(), caller, SESSION_LIMITS)
  const slots = new Set<number>()
  for (const node of clusterClient.nodes('master')) {
    for (const key of await node.keys('*slots:*')) slots.add(Number(await node.cluster('KEYSLOT', key)))
  }
  t.equal(slots.size, 1, 'one slot')
})

t.test('redis: 10,000 sessions opened and abandoned stay within the bounds (hostile)', async (t) => {
  const store = new RedisSessionStore({ client, prefix: 'flood:' })
  t.teardown(() => store.close())
  const limits = { maxSessions: 500, maxSessionsPerCaller: 50, idleTimeoutMs: 60_000 }
  const before = Number((await client.info('memory')).match(/used_memory:(\d+)/)?.[1])
  let evicted = 0
  for (let batch = 0; batch < 100; batch++) {
    const made = await Promise.all(Array.from({ length: 100 }, (_, i) => store.create(newId(), `caller${(batch * 100 + i) % 40}`, limits)))
    evicted += made.reduce((sum, ids) => sum + ids.length, 0)
  }
  t.equal(await client.zcard('{flood:sessions}:all'), 500, 'the set of all holds maxSessions')
  t.equal((await client.keys('{flood:sessions}:s:*')).length, 500, 'records: maxSessions')
  t.equal(evicted, 10_000 - 500, 'every other session was named as making room')
  const perCaller = await Promise.all((await client.keys('{flood:sessions}:c:*')).map((key) => client.zcard(key)))
  t.ok(perCaller.length === 40 && perCaller.every((count) => count <= 50), `per caller within its bound (${Math.max(...perCaller)})`)
  const after = Number((await client.info('memory')).match(/used_memory:(\d+)/)?.[1])
  t.ok(after - before < 2 * 1024 * 1024, `Redis memory grew by ${after - before} bytes (bounded)`)
})
