/**
 * The legacy log levels, one per caller. A stateless legacy endpoint has no
 * session to keep a `logging/setLevel` in, so the level belongs to whoever
 * set it: the caller (lib/auth/caller.ts: the authenticated principal, else
 * a digest of the `Authorization` header). Callers without either are one
 * caller, `'anonymous'`: they cannot be told apart, and a level only decides
 * how much of a request's OWN logging its client receives, never whose.
 *
 * Bounded: at most `maxCallers` levels, the least recently used dropped
 * first (that caller then gets no log messages until it sets a level again).
 * Every instance keeps its own copy, fed through the event bus.
 */
import type { LogLevel } from '../protocol/log-level.js'

/** Callers whose level is remembered; beyond that the least recently used is forgotten. */
export const DEFAULT_MAX_LOG_LEVEL_CALLERS = 10_000

export class CallerLogLevels {
  readonly maxCallers: number
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  readonly #levels = new Map<string, LogLevel>()

  constructor (maxCallers = DEFAULT_MAX_LOG_LEVEL_CALLERS) {
    this.maxCallers = maxCallers
  }

  get size (): number {
    return this.#levels.size
  }

  /** The level `caller` set, if remembered (and marks it used). */
  get (caller: string): LogLevel | undefined {
    const level = this.#levels.get(caller)
    if (level !== undefined && this.#levels.size > 1) {
      this.#levels.delete(caller)
      this.#levels.set(caller, level)
    }
    return level
  }

  set (caller: string, level: LogLevel): void {
    this.#levels.delete(caller)
    this.#levels.set(caller, level)
    if (this.#levels.size > this.maxCallers) {
      const oldest = this.#levels.keys().next().value as string
      this.#levels.delete(oldest)
    }
  }

  clear (): void {
    this.#levels.clear()
  }
}
