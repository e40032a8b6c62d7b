/**
 * The Redis parts on a real Redis Cluster (three local masters, started once
 * for this file): the task store passes the whole store contract with its
 * keys in one hash slot; events and legacy answers travel between instances
 * on channels that live in other slots (sharded pub/sub on Redis 7+); two
 * endpoints built with `redisScale({ cluster })` serve as one.
 */
import { Cluster } from 'ioredis'
import t from 'tap'
import { RedisAnswerRouter, RedisConnection, RedisEventBus, redisScale } from '../../lib/redis/index.js'
import { RedisTaskStore } from '../../lib/redis/redis-task-store.js'
import type { McpEvent } from '../../lib/parts/event-bus.js'
import type { JsonObject } from '../../lib/protocol/jsonrpc.js'
import { startRedisCluster } from '../helpers/redis-cluster.js'
import { taskStoreContract } from '../parts/task-store-contract.js'
import { redisLostAndBack } from './fault-scenario.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { newProbe, tasksModule } from '../tasks/fixtures.js'
import { TASKS_CAPS, tasksClient } from '../tasks/helpers.js'

const started = Date.now()
const cluster = await startRedisCluster()
t.teardown(() => cluster.close())
t.comment(`cluster of ${cluster.urls.length} masters ready in ${Date.now() - started} ms`)
const nodes = cluster.urls

async function until (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

let n = 0
// Each contract test gets its own store (and connection) under its own prefix.
const stores: RedisTaskStore[] = []
t.teardown(() => Promise.all(stores.map((store) => store.close())))
taskStoreContract(t, (limits) => {
  const store = new RedisTaskStore({ cluster: { nodes }, prefix: `contract${++n}:` }, limits)
  stores.push(store)
  return store
})

t.test('the connection sees a cluster and shards its channels where the servers can', async (t) => {
  const connection = new RedisConnection({ cluster: { nodes } })
  t.teardown(() => connection.close())
  await connection.ready()
  t.equal(connection.cluster, true)
  t.match(connection.where, /^the Redis Cluster at 127\.0\.0\.1:\d+/)
  const probe = new Cluster(nodes.map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })))
  t.teardown(() => probe.disconnect())
  const info = await probe.command('INFO', 'SPUBLISH') as unknown[]
  const shards = Array.isArray(info[0])
  const heard: string[] = []
  await connection.subscribe('mcp:probe-channel', (message) => heard.push(message))
  // A sharded subscriber hears SPUBLISH; a classic one would not (and the reverse).
  await probe[shards ? 'spublish' : 'publish']('mcp:probe-channel', 'hello')
  await until(() => heard.length === 1, 'the message')
  t.same(heard, ['hello'], shards ? 'sharded pub/sub (SSUBSCRIBE/SPUBLISH)' : 'classic pub/sub (this server has no sharded channels)')
})

t.test('the task store keeps all its keys in one slot', async (t) => {
  const probe = new Cluster(nodes.map((url) => ({ host: '127.0.0.1', port: Number(new URL(url).port) })))
  t.teardown(() => probe.disconnect())
  const store = new RedisTaskStore({ cluster: { nodes }, prefix: 'slots:' }, { ttlMs: 60_000, pollIntervalMs: 1000, maxTasks: 10, maxTasksPerOwner: 10, maxTaskBytes: 4096, maxStoredBytes: 65536 })
  t.teardown(() => store.close())
  for (const owner of ['alice', 'bob', 'carol']) {
    const made = await store.create(owner)
    if (!made.ok) throw new Error('refused')
    await store.ask(made.task.taskId, 'q', { method: 'roots/list' })
  }
  const slots = new Set<number>()
  for (const node of probe.nodes('master')) {
    for (const key of await node.keys('*slots:*')) slots.add(Number(await node.cluster('KEYSLOT', key)))
  }
  t.equal(slots.size, 1, 'every key of the store hashes to the same slot')
})

t.test('events reach every instance across the cluster, once', async (t) => {
  const buses = [0, 1, 2].map(() => new RedisEventBus({ cluster: { nodes }, prefix: 'bus:' }))
  t.teardown(() => Promise.all(buses.map((bus) => bus.close())))
  const heard: McpEvent[][] = buses.map(() => [])
  buses.forEach((bus, i) => bus.subscribe((event) => heard[i]?.push(event)))
  await Promise.all(buses.map((bus) => bus.ready()))
  await buses[0]?.publish({ type: 'listChanged', list: 'tools' })
  await buses[2]?.publish({ type: 'resourceUpdated', uri: 'file:///a' })
  await until(() => heard.every((h) => h.length === 2), 'both events everywhere')
  await new Promise((resolve) => setTimeout(resolve, 50))
  for (const h of heard) t.same(h.map((e) => e.type).sort(), ['listChanged', 'resourceUpdated'], 'each event once')
})

t.test('a legacy answer reaches the instance that asked, whatever slot its channel has', async (t) => {
  const routers = [0, 1, 2, 3].map(() => new RedisAnswerRouter({ cluster: { nodes }, prefix: 'ans:' }))
  t.teardown(() => Promise.all(routers.map((r) => r.close())))
  const got: Array<Array<{ answer: JsonObject, caller: string }>> = routers.map(() => [])
  routers.forEach((router, i) => router.attach((answer, caller) => { got[i]?.push({ answer, caller }); return true }))
  await Promise.all(routers.map((router) => router.ready()))
  const ids = routers.map((router) => router.requestId())
  // Every router answers every other router's request.
  for (const [from, router] of routers.entries()) {
    for (const [to, id] of ids.entries()) if (to !== from) await router.forward({ jsonrpc: '2.0', id, result: { from } }, `caller-${from}`)
  }
  await until(() => got.every((g) => g.length === routers.length - 1), 'every answer')
  for (const [i, g] of got.entries()) {
    t.same(g.map((x) => x.answer.id), Array(routers.length - 1).fill(ids[i]), `router ${i} got the answers to its own request only`)
  }
})

t.test('two endpoints on redisScale({ cluster }): a task created through one is answered and finished through the other', async (t) => {
  const make = (): ReturnType<typeof buildApp> => buildApp(t, {
    server: tasksModule(newProbe()),
    tasks: true,
    requestState: { secret: 'cluster-request-state-secret-0123456789abcdef' },
    scale: redisScale({ cluster: { nodes }, prefix: 'apps:' })
  })
  const a = await make()
  const b = await make()
  const viaA = tasksClient(t, a)
  const viaB = tasksClient(t, b)
  const taskId = (await viaA.call('ask', {}, { capabilities: { ...TASKS_CAPS, elicitation: {} } })).json.result.taskId
  let task: any
  await until(async () => (task = (await viaB.get(taskId)).json.result)?.status === 'input_required', 'the question on B')
  const answered = Date.now()
  await viaB.update(taskId, { confirm: { action: 'accept', content: { ok: true } } })
  await until(async () => (task = (await viaB.get(taskId)).json.result)?.status === 'completed', 'the task completed')
  t.ok(Date.now() - answered < 1500, `the answer reached the work on A through the bus (${Date.now() - answered} ms)`)
  t.strictSame(task.result.content, [{ type: 'text', text: 'answer accept {"ok":true}' }])
})

// Last: takes the whole cluster away and back.
t.test('the cluster lost while serving, then back (the fault scenario of faults.test.ts)', async (t) => {
  await redisLostAndBack(t, { where: { cluster: { nodes } }, stop: cluster.stop, restart: cluster.restart })
})
