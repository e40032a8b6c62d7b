/**
 * Verified tokens, remembered so an authorized request costs a map lookup
 * instead of a signature check. Bounded in count (oldest entry evicted
 * first) and never used past the token's expiry or the cache's own limit,
 * whichever comes first. Keys are the tokens themselves: they are in this
 * process's memory anyway while requests carry them, and are never logged.
 */
import { BoundedMemo } from '../common/bounded-memo.js'

interface Entry<T> {
  readonly value: T
  readonly until: number
}

export class TokenCache<T> {
  readonly #entries: BoundedMemo<string, Entry<T>>
  readonly #maxTtlMs: number
  readonly #now: () => number

  constructor (maxEntries: number, maxTtlMs: number, now: () => number = Date.now) {
    this.#entries = new BoundedMemo(maxEntries, 'oldest')
    this.#maxTtlMs = maxTtlMs
    this.#now = now
  }

  get size (): number {
    return this.#entries.size
  }

  get (token: string): T | undefined {
    const entry = this.#entries.get(token)
    if (entry === undefined) return undefined
    if (this.#now() >= entry.until) {
      this.#entries.delete(token)
      return undefined
    }
    return entry.value
  }

  /** Remembers a verified token until `expiresAtMs` (its `exp`), at most the cache's limit from now. */
  set (token: string, value: T, expiresAtMs: number | undefined): void {
    if (this.#entries.limit === 0) return
    const now = this.#now()
    const until = Math.min(now + this.#maxTtlMs, expiresAtMs ?? Number.POSITIVE_INFINITY)
    if (until <= now) return
    this.#entries.set(token, { value, until })
  }

  clear (): void {
    this.#entries.clear()
  }
}
