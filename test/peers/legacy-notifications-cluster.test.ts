// The legacy peers (see legacy-scenario.ts: the SDK client v1 and v2 in legacy mode) with the three instances, and the session store, on a real local Redis Cluster (3 masters).
import t from 'tap'
import { startRedisCluster } from '../helpers/redis-cluster.js'
import { legacyPeerScenarios } from './legacy-scenario.js'

const cluster = await startRedisCluster()
t.teardown(cluster.close)
await legacyPeerScenarios(t, { cluster: { nodes: cluster.urls } }, 'Redis Cluster')
