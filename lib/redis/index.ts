/**
 * `fastify-mcp-capabilities/redis`: the shared parts on Redis (ioredis, an
 * optional peer dependency that only this entry loads), so any number of
 * instances behind a plain load balancer serve as one.
 *
 *   import mcp from 'fastify-mcp-capabilities'
 *   import { redisScale } from 'fastify-mcp-capabilities/redis'
 *
 *   await app.register(mcp, {
 *     server, serverInfo, tasks: true,
 *     requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET },
 *     scale: redisScale({ url: process.env.REDIS_URL, prefix: 'notes:' })
 *   })
 *
 * `redisScale()` makes one connection pair (commands and subscriber) shared
 * by its parts; a part holds it from its first command, and the last part
 * in use closes it when the app closes (parts never used hold nothing). Each part can
 * also be built and given alone. On a Redis Cluster:
 * `redisScale({ cluster: { nodes: ['redis://host:port', ...] } })`, or
 * `{ client: new Cluster(...) }`.
 */
import type { AnswerRouter } from '../parts/answer-router.js'
import type { EventBus } from '../parts/event-bus.js'
import type { TaskStoreFactory } from '../parts/task-store.js'
import type { CatalogStore } from '../parts/catalog-store.js'
import type { SessionStore } from '../parts/session-store.js'
import { RedisAnswerRouter } from './redis-answer-router.js'
import { RedisCatalogStore } from './redis-catalog-store.js'
import { RedisConnection, type RedisConnectionOptions } from './redis-connection.js'
import { RedisEventBus } from './redis-event-bus.js'
import { RedisSessionStore } from './redis-session-store.js'
import { redisTaskStore } from './redis-task-store.js'

export { RedisAnswerRouter } from './redis-answer-router.js'
export { RedisCatalogStore } from './redis-catalog-store.js'
export {
  DEFAULT_COMMAND_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_KEY_PREFIX,
  RedisConnection, type RedisConnectionOptions, type RedisClient, type RedisClusterOptions, type MessageHandler, RedisUnavailableError
} from './redis-connection.js'
export { RedisEventBus } from './redis-event-bus.js'
export { RedisSessionStore } from './redis-session-store.js'
export { RedisTaskStore, redisTaskStore } from './redis-task-store.js'

/** What the `scale` option takes: every shared part at once. */
export interface RedisScale {
  eventBus: EventBus
  answerRouter: AnswerRouter
  /** Task records (`tasks: true`): builds the store from the limits of the endpoint's `tasks` option. */
  taskStore: TaskStoreFactory
  /** Runtime catalogue changes, read by an instance at ready. */
  catalogStore: CatalogStore
  /** Legacy `Mcp-Session-Id` sessions (the `sessions` option), served by any instance. */
  sessionStore: SessionStore
}

/** The event bus, the legacy answer router, the task store, the catalogue store and the session store on one Redis or cluster (`url`, `cluster` or an ioredis `client`), under one key `prefix`. */
export function redisScale (options: RedisConnectionOptions): RedisScale {
  const connection = new RedisConnection(options)
  return {
    eventBus: new RedisEventBus(connection),
    answerRouter: new RedisAnswerRouter(connection),
    taskStore: redisTaskStore(connection),
    catalogStore: new RedisCatalogStore(connection),
    sessionStore: new RedisSessionStore(connection)
  }
}
