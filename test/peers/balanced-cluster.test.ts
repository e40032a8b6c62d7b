// The balanced conformance proof (see balanced-scenario.ts) with the instances sharing a real local Redis Cluster (3 masters).
import t from 'tap'
import { startRedisCluster } from '../helpers/redis-cluster.js'
import { balancedConformance } from './balanced-scenario.js'

const cluster = await startRedisCluster()
t.teardown(cluster.close)
await balancedConformance(t, { REDIS_CLUSTER_NODES: cluster.urls.join(',') }, 'Redis Cluster')
