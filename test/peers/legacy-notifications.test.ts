// The legacy peers (see legacy-scenario.ts: the SDK client v1 and v2 in legacy mode) with the three instances sharing one real redis-server.
import t from 'tap'
import { startRedisServer } from '../helpers/redis-server.js'
import { legacyPeerScenarios } from './legacy-scenario.js'

const redis = await startRedisServer()
t.teardown(redis.close)
await legacyPeerScenarios(t, { url: redis.url }, 'one Redis')
