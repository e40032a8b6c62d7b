/**
 * RedisEventBus against a real redis-server: events reach the other
 * instances once and the publisher's own subscribers at once; the channel is
 * released when nobody listens; malformed messages are ignored; prefixes keep
 * apps apart; an existing client's settings (password, ACL user) carry over to
 * the subscriber connection; Redis lost and back.
 */
import { Redis } from 'ioredis'
import t, { type Test } from 'tap'
import { RedisConnection, RedisEventBus, RedisUnavailableError } from '../../lib/redis/index.js'
import type { McpEvent } from '../../lib/parts/event-bus.js'
import { freePort, startRedisServer } from '../helpers/redis-server.js'

const TOOLS: McpEvent = { type: 'listChanged', list: 'tools' }

const redis = await startRedisServer()
t.teardown(redis.close)

async function until (condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

async function bus (t: Test, options: { prefix?: string } = {}): Promise<RedisEventBus> {
  const b = new RedisEventBus({ url: redis.url, ...options })
  t.teardown(() => b.close())
  return b
}

async function numsub (channel: string): Promise<number> {
  const client = new Redis(redis.url)
  try {
    const reply = await client.pubsub('NUMSUB', channel) as [string, number]
    return Number(reply[1])
  } finally {
    client.disconnect()
  }
}

t.test('an event reaches the other instances once, and the publisher\'s own subscribers at once', async (t) => {
  const a = await bus(t)
  const b = await bus(t)
  const heardA: McpEvent[] = []
  const heardB: McpEvent[] = []
  a.subscribe((e) => heardA.push(e))
  b.subscribe((e) => heardB.push(e))
  await Promise.all([a.ready(), b.ready()])

  const published = a.publish(TOOLS)
  t.same(heardA, [TOOLS], 'local subscribers hear it synchronously')
  await published
  // Each event in order: B's subscriber may read A's message after A's own PUBLISH reply.
  await until(() => heardB.length === 1, 'B to hear the first event')
  const task: McpEvent = { type: 'taskStatus', owner: 'o1', task: { taskId: 't1', status: 'working', createdAt: 'x' } }
  await b.publish(task)
  await until(() => heardB.length === 2 && heardA.length === 2, 'both events everywhere')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(heardA, [TOOLS, task], 'A heard its own event once (the echo from Redis is skipped) and B\'s')
  t.same(heardB, [TOOLS, task])
})

t.test('the channel is subscribed while someone listens and released after (no leak)', async (t) => {
  const a = await bus(t, { prefix: 'leak:' })
  t.equal(await numsub('leak:events'), 0)
  const off1 = a.subscribe(() => {})
  const off2 = a.subscribe(() => {})
  await a.ready()
  t.equal(await numsub('leak:events'), 1, 'one subscription for any number of listeners')
  off1()
  t.equal(await numsub('leak:events'), 1)
  off2()
  await until(async () => await numsub('leak:events') === 0, 'the channel to be released')
  for (let i = 0; i < 5; i++) {
    const off = a.subscribe(() => {})
    await a.ready()
    off()
  }
  await until(async () => await numsub('leak:events') === 0, 'the channel to be released again')
  t.pass('coming and going leaves nothing subscribed')
})

t.test('prefixes keep apps apart; malformed messages are ignored', async (t) => {
  const one = await bus(t, { prefix: 'one:' })
  const two = await bus(t, { prefix: 'two:' })
  const heard: McpEvent[] = []
  two.subscribe((e) => heard.push(e))
  await two.ready()
  await one.publish(TOOLS)
  const raw = new Redis(redis.url)
  t.teardown(() => raw.disconnect())
  for (const junk of ['', 'x', 'origin', 'origin {', 'origin {"type":"listChanged","list":"bogus"}', 'origin []', 'origin null']) {
    await raw.publish('two:events', junk)
  }
  await raw.publish('two:events', 'someone ' + JSON.stringify({ type: 'resourceUpdated', uri: 'a://b' }))
  await until(() => heard.length > 0, 'the valid message')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.same(heard, [{ type: 'resourceUpdated', uri: 'a://b' }])
})

t.test('publish rejects a value that is not an event', async (t) => {
  const a = await bus(t)
  await t.rejects(a.publish({ type: 'nope' } as never), TypeError)
})

t.test('an existing client: commands on it, the subscriber is its duplicate (password and ACL user carry over)', async (t) => {
  const secured = await startRedisServer({ args: ['--requirepass', 'default-pass', '--user', 'mcp', 'on', '>mcp-pass', '~*', '&*', '+@all'] })
  t.teardown(secured.close)
  const clientA = new Redis({ host: '127.0.0.1', port: secured.port, username: 'mcp', password: 'mcp-pass' })
  const clientB = new Redis({ host: '127.0.0.1', port: secured.port, username: 'mcp', password: 'mcp-pass' })
  t.teardown(() => { clientA.disconnect(); clientB.disconnect() })
  const a = new RedisEventBus({ client: clientA })
  const b = new RedisEventBus({ client: clientB })
  const heard: McpEvent[] = []
  b.subscribe((e) => heard.push(e))
  await Promise.all([a.ready(), b.ready()])
  await a.publish(TOOLS)
  await until(() => heard.length === 1, 'the event through the authenticated subscriber')
  const clients = await clientA.client('LIST') as string
  const users = clients.split('\n').filter(Boolean).map((line) => /user=(\S+)/.exec(line)?.[1])
  t.ok(users.length >= 4 && users.every((u) => u === 'mcp'), `every connection runs as the ACL user: ${users.join(',')}`)
  await a.close()
  await b.close()
  t.equal(clientA.status, 'ready', 'the given client is not closed by the bus')
})

t.test('Redis unreachable: ready() rejects within connectTimeoutMs', async (t) => {
  const port = await freePort()
  const a = new RedisEventBus({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 300 })
  a.subscribe(() => {})
  const started = Date.now()
  await t.rejects(a.ready(), { name: 'RedisUnavailableError', message: /unreachable.*300 ms/ })
  t.ok(Date.now() - started < 1_500, 'rejected in bounded time')
  await a.close()
})

t.test('Redis lost while serving: publish rejects quickly, local subscribers still hear; back: remote delivery resumes', async (t) => {
  const own = await startRedisServer()
  t.teardown(own.close)
  const connection = new RedisConnection({ url: own.url, commandTimeoutMs: 500 })
  const a = new RedisEventBus(connection)
  const b = new RedisEventBus({ url: own.url })
  t.teardown(() => Promise.all([a.close(), b.close()]))
  const heardA: McpEvent[] = []
  const heardB: McpEvent[] = []
  a.subscribe((e) => heardA.push(e))
  b.subscribe((e) => heardB.push(e))
  let bBack = false
  b.onReconnect(() => { bBack = true })
  await Promise.all([a.ready(), b.ready()])

  await own.stop()
  await until(() => !connection.available, 'the connection to notice')
  const started = Date.now()
  await t.rejects(a.publish(TOOLS), RedisUnavailableError)
  t.ok(Date.now() - started < 500, `rejected at once (${Date.now() - started} ms)`)
  t.same(heardA, [TOOLS], 'the local subscriber heard it all the same')

  await own.restart()
  // Publish until B hears again: its subscriber reconnects and subscribes by itself.
  await until(async () => {
    await a.publish({ type: 'resourceUpdated', uri: 'back://1' }).catch(() => {})
    return heardB.some((e) => e.type === 'resourceUpdated')
  }, 'B to hear events again', 10_000)
  t.same(heardB.find((e) => e.type === 'resourceUpdated'), { type: 'resourceUpdated', uri: 'back://1' })
  // Pub/sub reaches only who is subscribed: A sends again once its own subscription is live; when B's
  // comes back later than that, B misses the copy, and its reconnect listeners (which tell B's streams
  // that anything may have changed) stand in for it. Either way B's streams learn of the change.
  await until(() => bBack, 'B to tell its reconnect listeners')
  const resent = heardB.filter((e) => e.type === 'listChanged')
  t.ok(resent.length <= 1, 'what A could not send is sent again at most once')
  if (resent.length === 1) t.same(resent, [TOOLS], 'what A could not send during the outage reached B once A was back')
  else t.pass('B was subscribed again after A sent it again: its reconnect listeners stood in')
})
