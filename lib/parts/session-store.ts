/**
 * The session store: legacy `Mcp-Session-Id` sessions (the `sessions`
 * option), kept where every instance reads them, so any instance serves any
 * session with no sticky routing. A session belongs to the caller that
 * opened it (`callerOf` its initialize); it holds the resources it
 * subscribed to and its log level. Bounded: sessions in all and per caller
 * (the least recently used one of the caller, else of all, makes room), and
 * an idle session expires.
 *
 * `MemorySessionStore` is the default (this process only).
 */
import type { MaybePromise } from '../common/maybe-promise.js'
import type { LogLevel } from '../protocol/log-level.js'

export interface SessionRecord {
  readonly caller: string
  /** Resources subscribed to (`resources/subscribe`). */
  readonly uris: readonly string[]
  /** `logging/setLevel` of this session; absent: no log messages. */
  readonly level?: LogLevel
}

export interface SessionLimits {
  readonly maxSessions: number
  readonly maxSessionsPerCaller: number
  readonly idleTimeoutMs: number
}

export interface SessionStore {
  /**
   * Opens a session for `caller` under `id`, making room within the bounds;
   * resolves with the ids of the sessions that made room (their streams end).
   */
  create (id: string, caller: string, limits: SessionLimits): Promise<readonly string[] | void>
  /**
   * The session when it exists, is not expired and belongs to `caller` (its
   * idle time starts again); else undefined. May answer at once (no promise)
   * from what this instance holds.
   */
  touch (id: string, caller: string, limits: SessionLimits): MaybePromise<SessionRecord | undefined>
  /** Changes a session of `caller`; resolves with the new record, or undefined when there is none. */
  update (id: string, caller: string, change: (record: SessionRecord) => SessionRecord, limits: SessionLimits): Promise<SessionRecord | undefined>
  /** Ends a session of `caller`; true when there was one. */
  delete (id: string, caller: string): Promise<boolean>
  /** A session changed or ended on another instance (heard on the event bus): a copy this instance holds of it is dropped. */
  forget? (id: string): void
  close (): Promise<void>
}

interface Entry {
  record: SessionRecord
  lastSeenMs: number
  /** When the entry last moved to the end of the map (the order of use). */
  orderedMs: number
}

/**
 * How stale a store's view of a session's last use may be, on either store:
 * the memory store moves a touched entry to the end of its order of use at
 * most this often (not a delete and a set on every request), and the Redis
 * store answers from its copy for this long (lib/redis/redis-session-store.ts).
 * Eviction is least recently used, and expiry early, to within this.
 */
export function lastUseStalenessMs (limits: SessionLimits): number {
  return Math.min(limits.idleTimeoutMs / 4, 5_000)
}

/** One process; the map's order is the order of last use, to within `lastUseStalenessMs`. */
export class MemorySessionStore implements SessionStore {
  readonly #sessions = new Map<string, Entry>()
  readonly #perCaller = new Map<string, Set<string>>()

  get size (): number {
    return this.#sessions.size
  }

  async create (id: string, caller: string, limits: SessionLimits): Promise<string[]> {
    const now = Date.now()
    this.#dropExpired(now, limits.idleTimeoutMs)
    const evicted: string[] = []
    const own = this.#perCaller.get(caller)
    if (own !== undefined && own.size >= limits.maxSessionsPerCaller) {
      // The caller's least recently used session makes room: one caller never holds more.
      for (const [other, entry] of this.#sessions) {
        if (entry.record.caller === caller) {
          this.#remove(other)
          evicted.push(other)
          break
        }
      }
    }
    if (this.#sessions.size >= limits.maxSessions) {
      const oldest = this.#sessions.keys().next().value as string
      this.#remove(oldest)
      evicted.push(oldest)
    }
    this.#sessions.set(id, { record: { caller, uris: [] }, lastSeenMs: now, orderedMs: now })
    let ids = this.#perCaller.get(caller)
    if (ids === undefined) this.#perCaller.set(caller, ids = new Set())
    ids.add(id)
    return evicted
  }

  /** At once: the map is the store. */
  touch (id: string, caller: string, limits: SessionLimits): SessionRecord | undefined {
    return this.#live(id, caller, limits)?.record
  }

  async update (id: string, caller: string, change: (record: SessionRecord) => SessionRecord, limits: SessionLimits): Promise<SessionRecord | undefined> {
    const entry = this.#live(id, caller, limits)
    if (entry === undefined) return undefined
    // The session stays its caller's whatever the change says.
    entry.record = { ...change(entry.record), caller: entry.record.caller }
    return entry.record
  }

  async delete (id: string, caller: string): Promise<boolean> {
    const entry = this.#sessions.get(id)
    if (entry === undefined || entry.record.caller !== caller) return false
    this.#remove(id)
    return true
  }

  async close (): Promise<void> {
    this.#sessions.clear()
    this.#perCaller.clear()
  }

  #live (id: string, caller: string, limits: SessionLimits): Entry | undefined {
    const entry = this.#sessions.get(id)
    if (entry === undefined || entry.record.caller !== caller) return undefined
    const now = Date.now()
    if (now - entry.lastSeenMs > limits.idleTimeoutMs) {
      this.#remove(id)
      return undefined
    }
    entry.lastSeenMs = now
    if (now - entry.orderedMs >= lastUseStalenessMs(limits)) {
      entry.orderedMs = now
      this.#sessions.delete(id)
      this.#sessions.set(id, entry)
    }
    return entry
  }

  /** From the front while the order of use says expired (an entry used since it last moved is not: it ends the sweep). */
  #dropExpired (now: number, idleTimeoutMs: number): void {
    for (const [id, entry] of this.#sessions) {
      if (now - entry.lastSeenMs <= idleTimeoutMs) break
      this.#remove(id)
    }
  }

  #remove (id: string): void {
    const entry = this.#sessions.get(id)
    if (entry === undefined) return
    this.#sessions.delete(id)
    const ids = this.#perCaller.get(entry.record.caller)
    if (ids !== undefined && ids.delete(id) && ids.size === 0) this.#perCaller.delete(entry.record.caller)
  }
}
