/**
 * One part's use of a Redis connection (lib/redis/redis-connection.ts),
 * counted from its first command rather than from its making: `redisScale()`
 * makes every part, a deployment may give the endpoint only some, and a part
 * never used must not keep the shared connection open once the used ones
 * have closed. A connection the part made for itself (from options) is
 * closed with it, used or not.
 */
import { connectionFrom, RedisConnection, type RedisConnectionOptions } from './redis-connection.js'

export class ConnectionUse {
  /** The connection, for what needs no command (its prefix, its settings). */
  readonly connection: RedisConnection
  readonly #own: boolean
  #state: 'unused' | 'retained' | 'released' = 'unused'

  constructor (source: RedisConnection | RedisConnectionOptions) {
    this.#own = !(source instanceof RedisConnection)
    this.connection = connectionFrom(source)
  }

  /** The connection, retained on the first call (never again once released). */
  get (): RedisConnection {
    if (this.#state === 'unused') {
      this.#state = 'retained'
      this.connection.retain()
    }
    return this.connection
  }

  /** Lets go of the connection: it closes when this was its last user, or when it was this part's own. */
  async release (): Promise<void> {
    const was = this.#state
    this.#state = 'released'
    if (was === 'retained') await this.connection.release()
    else if (was === 'unused' && this.#own) await this.connection.close()
  }
}
