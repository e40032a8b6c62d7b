/**
 * A discovery cache that honours the server's hints (2026-07-28 caching
 * rules): an answer is fresh while `now < receivedAt + ttlMs`; `ttlMs: 0` is
 * never stored; `private` answers are keyed by the credential in use and the
 * URL, `public` ones by the URL alone; concurrent misses for the same key
 * share one request; least-recently-used entries go first when full.
 */
import { DiscoverAbortError } from './discover-errors.js'
import { credentialKey, DEFAULT_CREDENTIAL_HEADERS } from './credential.js'
import { discover, normalizeUrl } from './discover.js'
import type { Discovery, DiscoverOptions } from './discover.js'
import { BoundedMemo } from '../common/bounded-memo.js'

export const DEFAULT_MAX_ENTRIES = 256

export interface DiscoverCacheOptions extends DiscoverOptions {
  /** Entries kept at most; the least recently used is evicted first. Default 256. */
  maxEntries?: number
  /** Upper clamp on any server's `ttlMs`. Default: none. */
  maxTtlMs?: number
  /** Headers that make up the authorization context. Default `authorization` and `cookie`. */
  credentialHeaders?: string[]
  /** The clock, in ms: freshness and `receivedAt`. Default `Date.now`. */
  now?: () => number
}

interface Entry {
  url: string
  value: Discovery
  expiresAt: number
}

interface Pending {
  url: string
  promise: Promise<Discovery>
}

export class DiscoverCache {
  readonly #defaults: DiscoverOptions
  readonly #maxTtlMs: number
  readonly #credentialHeaders: readonly string[]
  readonly #now: () => number
  readonly #entries: BoundedMemo<string, Entry>
  readonly #pending = new Map<string, Pending>()
  /** Bumped by invalidate(), so an answer requested before it is not stored after it. */
  #generation = 0

  constructor (options: DiscoverCacheOptions = {}) {
    const { maxEntries = DEFAULT_MAX_ENTRIES, maxTtlMs, credentialHeaders = DEFAULT_CREDENTIAL_HEADERS, now = Date.now, ...defaults } = options
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) throw new TypeError('DiscoverCache: maxEntries must be a positive integer')
    if (maxTtlMs !== undefined && !(typeof maxTtlMs === 'number' && maxTtlMs >= 0)) {
      throw new TypeError('DiscoverCache: maxTtlMs must be a non-negative number')
    }
    if (typeof now !== 'function') throw new TypeError('DiscoverCache: now must be a function')
    this.#defaults = defaults
    this.#entries = new BoundedMemo(maxEntries, 'least-recent')
    this.#maxTtlMs = maxTtlMs ?? Infinity
    this.#credentialHeaders = [...credentialHeaders]
    this.#now = now
  }

  /** Entries currently held (fresh or not yet found stale). */
  get size (): number {
    return this.#entries.size
  }

  /**
   * Same contract as `discover(url, options)`, answered from the cache when a
   * fresh entry exists. Calls that coalesce into one request share the
   * options of the first; each keeps its own `signal`.
   */
  async discover (url: string | URL, options: DiscoverOptions = {}): Promise<Discovery> {
    const endpoint = normalizeUrl(url)
    const headers = new Headers(this.#defaults.headers)
    new Headers(options.headers).forEach((value, name) => headers.set(name, value))
    const credential = await credentialKey(headers, this.#credentialHeaders)
    const privateKey = `private\n${credential}\n${endpoint}`
    const publicKey = `public\n${endpoint}`

    const hit = this.#get(privateKey) ?? this.#get(publicKey)
    if (hit !== undefined) return hit

    // In-flight requests are keyed by credential: the answer's scope is unknown until it arrives.
    let pending = this.#pending.get(privateKey)
    if (pending === undefined) {
      const generation = this.#generation
      const { signal: _ignored, ...own } = options
      const promise = discover(endpoint, { ...this.#defaults, ...own, headers, now: this.#now })
        .then(value => {
          if (generation === this.#generation) this.#store(value, value.cacheScope === 'public' ? publicKey : privateKey)
          return value
        })
      pending = { url: endpoint, promise }
      const settled = pending
      this.#pending.set(privateKey, settled)
      promise.finally(() => {
        if (this.#pending.get(privateKey) === settled) this.#pending.delete(privateKey)
      }).catch(() => {})
    }
    return await abortable(pending.promise, options.signal, endpoint)
  }

  /** Forget one endpoint (every scope and credential), or everything. */
  invalidate (url?: string | URL): void {
    this.#generation++
    if (url === undefined) {
      this.#entries.clear()
      this.#pending.clear()
      return
    }
    const endpoint = normalizeUrl(url)
    for (const [key, entry] of [...this.#entries.entries()]) if (entry.url === endpoint) this.#entries.delete(key)
    for (const [key, pending] of this.#pending) if (pending.url === endpoint) this.#pending.delete(key)
  }

  #get (key: string): Discovery | undefined {
    const entry = this.#entries.get(key) // now the most recently used
    if (entry === undefined) return undefined
    if (!(this.#now() < entry.expiresAt)) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.value
  }

  #store (value: Discovery, key: string): void {
    const ttl = Math.min(value.ttlMs, this.#maxTtlMs)
    if (!(ttl > 0)) return
    const expiresAt = value.receivedAt + ttl
    if (!(this.#now() < expiresAt)) return
    this.#entries.set(key, { url: value.url, value: deepFreeze(value), expiresAt })
  }
}

/** The shared promise, or a rejection when this caller's signal fires first. */
async function abortable<T> (promise: Promise<T>, signal: AbortSignal | undefined, url: string): Promise<T> {
  if (signal === undefined) return await promise
  const aborted = (): DiscoverAbortError => new DiscoverAbortError(url, `discovery of ${url} was aborted`, { cause: signal.reason })
  if (signal.aborted) throw aborted()
  let onAbort = (): void => {}
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_resolve, reject) => {
        onAbort = () => reject(aborted())
        signal.addEventListener('abort', onAbort, { once: true })
      })
    ])
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}

/** Cached answers are shared between callers: none of them may change what the others see. */
function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key])
  }
  return value
}
