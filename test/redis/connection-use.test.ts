/**
 * A Redis part holds the shared connection from its first command
 * (lib/redis/connection-use.ts): a deployment that gives the endpoint only
 * some of `redisScale()`'s parts closes the connection by closing those; and
 * a command on a connection made here is bounded by ioredis's own
 * `commandTimeout` (lib/redis/redis-connection.ts).
 */
import { Redis } from 'ioredis'
import t from 'tap'
import { redisScale, RedisConnection, RedisUnavailableError } from '../../lib/redis/index.js'
import { startRedisServer } from '../helpers/redis-server.js'

const server = await startRedisServer()
const probe = new Redis(server.url, { maxRetriesPerRequest: 1 })
t.teardown(async () => {
  probe.disconnect()
  await server.close()
})

/** Connections the server holds besides the probe's own. */
async function others (): Promise<number> {
  const list = await probe.client('LIST') as string
  return list.trim().split('\n').filter((line) => !line.includes('cmd=client')).length
}

async function until (condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

t.test('only the bus and the router used: closing them closes the shared connection', async (t) => {
  const scale = redisScale({ url: server.url, prefix: 'some:' })
  scale.eventBus.subscribe(() => {})
  scale.answerRouter.attach(() => true)
  await Promise.all([scale.eventBus.ready?.(), scale.answerRouter.ready?.()])
  await scale.eventBus.publish({ type: 'listChanged', list: 'tools' })
  t.equal(await others(), 2, 'commands and subscriber connected')
  await scale.eventBus.close()
  await scale.answerRouter.close()
  await until(async () => await others() === 0, 'no connection left')
  t.pass('the catalogue and session stores, never used, held nothing open')
})

t.test('a part used after the others closes the connection last', async (t) => {
  const scale = redisScale({ url: server.url, prefix: 'last:' })
  scale.eventBus.subscribe(() => {})
  await scale.eventBus.ready?.()
  await scale.sessionStore.create('AAAAAAAAAAAAAAAAAAAAAA', 'alice', { maxSessions: 10, maxSessionsPerCaller: 10, idleTimeoutMs: 10_000 })
  await scale.eventBus.close()
  t.ok(await others() >= 1, 'still open for the session store')
  t.ok(await scale.sessionStore.touch('AAAAAAAAAAAAAAAAAAAAAA', 'alice', { maxSessions: 10, maxSessionsPerCaller: 10, idleTimeoutMs: 10_000 }))
  await scale.sessionStore.close()
  await scale.catalogStore.close()
  await until(async () => await others() === 0, 'no connection left')
  t.pass('closed with its last user')
})

t.test('a command on a connection made here is bounded by ioredis\'s commandTimeout', async (t) => {
  const connection = new RedisConnection({ url: server.url, prefix: 'slow:', commandTimeoutMs: 200 })
  t.teardown(() => connection.close())
  await connection.ready()
  await probe.client('PAUSE', 1000, 'ALL')
  const err = await connection.run((redis) => redis.get('slow:x')).then(() => undefined, (e: unknown) => e)
  t.ok(err instanceof RedisUnavailableError, 'refused as unavailable')
  t.match((err as Error).message, /Command timed out/, 'by ioredis\'s own timeout')
  await probe.client('UNPAUSE')
})
