// Redis lost while serving, and back (see fault-scenario.ts), on one real redis-server.
import t from 'tap'
import { startRedisServer } from '../helpers/redis-server.js'
import { redisLostAndBack } from './fault-scenario.js'

t.test('Redis lost while serving, then back', async (t) => {
  const redis = await startRedisServer()
  t.teardown(redis.close)
  await redisLostAndBack(t, { where: { url: redis.url }, stop: redis.stop, restart: redis.restart })
})
