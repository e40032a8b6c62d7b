// The balanced conformance proof (see balanced-scenario.ts) with the instances sharing one real redis-server.
import t from 'tap'
import { startRedisServer } from '../helpers/redis-server.js'
import { balancedConformance } from './balanced-scenario.js'

const redis = await startRedisServer()
t.teardown(redis.close)
await balancedConformance(t, { REDIS_URL: redis.url }, 'one Redis')
