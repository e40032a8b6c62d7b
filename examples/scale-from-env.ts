/**
 * How the examples run as one of several instances: `REDIS_URL` puts the
 * shared parts (event bus, task store, legacy answer router) on that Redis,
 * or `REDIS_CLUSTER_NODES` (comma-separated `redis://host:port` URLs of some
 * nodes) on a Redis Cluster, under `REDIS_PREFIX` (default `mcp:`), and
 * `MCP_REQUEST_STATE_SECRET` is the secret every instance seals
 * `requestState` with (required with Redis). Without them the example runs in memory, on
 * its own. The `./redis` entry (and ioredis) is loaded only when Redis is set.
 */
import type { McpCapabilitiesOptions } from '../lib/index.js'

export async function scaleFromEnv (env: NodeJS.ProcessEnv = process.env): Promise<Pick<McpCapabilitiesOptions, 'scale' | 'requestState'>> {
  const options: Pick<McpCapabilitiesOptions, 'scale' | 'requestState'> = {}
  const secret = env.MCP_REQUEST_STATE_SECRET
  if (secret !== undefined && secret !== '') options.requestState = { secret }
  const url = env.REDIS_URL
  const nodes = env.REDIS_CLUSTER_NODES
  if ((url !== undefined && url !== '') || (nodes !== undefined && nodes !== '')) {
    const { redisScale } = await import('../lib/redis/index.js')
    const prefix = env.REDIS_PREFIX
    const where = url !== undefined && url !== '' ? { url } : { cluster: { nodes: (nodes as string).split(',').map((node) => node.trim()) } }
    options.scale = redisScale(prefix !== undefined && prefix !== '' ? { ...where, prefix } : where)
  }
  return options
}
