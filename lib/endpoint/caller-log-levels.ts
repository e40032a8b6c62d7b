/**
 * The legacy log levels, one per caller. A stateless legacy endpoint has no
 * session to keep a `logging/setLevel` in, so the level belongs to whoever
 * set it: the caller (`callerOf` in lib/handler/caller.ts: the
 * authenticated principal, else a digest of the `Authorization` header, else
 * `'anonymous'`). Anonymous callers cannot be told apart and share one
 * level; a level only decides how much of a request's OWN logging its client
 * receives, never whose.
 *
 * Bounded, and split by how much the caller is worth believing: principals
 * (a token this endpoint verified named them) and credential digests (any
 * header value makes a new one) are two tables of at most `maxCallers` each,
 * the least recently used forgotten first, and the anonymous level is a slot
 * of its own. Sending made-up `Authorization` values can so only push out
 * other made-up values, never a principal's level nor the anonymous one.
 * Every instance keeps its own copy, fed through the event bus.
 */
import type { LogLevel } from '../protocol/log-level.js'
import { BoundedMemo } from '../common/bounded-memo.js'
import { isPrincipal } from '../auth/verified-token.js'

/** Callers per table whose level is remembered; beyond that the least recently used is forgotten. */
export const DEFAULT_MAX_LOG_LEVEL_CALLERS = 10_000

const ANONYMOUS = 'anonymous'

export class CallerLogLevels {
  readonly maxCallers: number
  readonly #principals: BoundedMemo<string, LogLevel>
  readonly #digests: BoundedMemo<string, LogLevel>
  #anonymous: LogLevel | undefined

  constructor (maxCallers = DEFAULT_MAX_LOG_LEVEL_CALLERS) {
    this.maxCallers = maxCallers
    this.#principals = new BoundedMemo(maxCallers, 'least-recent')
    this.#digests = new BoundedMemo(maxCallers, 'least-recent')
  }

  /** How many callers have a level. */
  get size (): number {
    return this.#principals.size + this.#digests.size + (this.#anonymous === undefined ? 0 : 1)
  }

  /** The level `caller` set, if remembered (and marks it used). */
  get (caller: string): LogLevel | undefined {
    if (caller === ANONYMOUS) return this.#anonymous
    return this.#tableOf(caller).get(caller)
  }

  set (caller: string, level: LogLevel): void {
    if (caller === ANONYMOUS) this.#anonymous = level
    else this.#tableOf(caller).set(caller, level)
  }

  clear (): void {
    this.#principals.clear()
    this.#digests.clear()
    this.#anonymous = undefined
  }

  #tableOf (caller: string): BoundedMemo<string, LogLevel> {
    return isPrincipal(caller) ? this.#principals : this.#digests
  }
}
