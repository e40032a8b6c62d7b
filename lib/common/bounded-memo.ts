/**
 * The one bounded memo: a map that never holds more than `limit` entries,
 * with the eviction its use needs when full.
 *
 * - `restart`: forget everything and start over. For memos of values a
 *   client may vary at will (ids, header strings): keys nobody repeats
 *   cannot crowd out those that are, and a full memo costs one `clear()`.
 * - `oldest`: forget the entry stored first (e.g. tokens, prepared hints).
 * - `least-recent`: forget the entry read or stored longest ago (a client's
 *   discovery cache).
 *
 * A limit of 0 keeps nothing. `PairMemo` is its two-key form (restart).
 */

export type Eviction = 'restart' | 'oldest' | 'least-recent'

export class BoundedMemo<K, V> {
  readonly limit: number
  readonly eviction: Eviction
  readonly #entries = new Map<K, V>()

  constructor (limit: number, eviction: Eviction) {
    this.limit = limit
    this.eviction = eviction
  }

  get size (): number {
    return this.#entries.size
  }

  get (key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined && this.eviction === 'least-recent') {
      // Map order is recency order: the first entry is the least recently used.
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  has (key: K): boolean {
    return this.#entries.has(key)
  }

  /** Stores `value` as the newest entry, evicting first when the memo is full. */
  set (key: K, value: V): void {
    if (this.limit <= 0) return
    const entries = this.#entries
    if (this.eviction === 'restart') {
      if (entries.size >= this.limit && !entries.has(key)) entries.clear()
    } else {
      entries.delete(key)
      while (entries.size >= this.limit) entries.delete(entries.keys().next().value as K)
    }
    entries.set(key, value)
  }

  delete (key: K): boolean {
    return this.#entries.delete(key)
  }

  clear (): void {
    this.#entries.clear()
  }

  entries (): IterableIterator<[K, V]> {
    return this.#entries.entries()
  }
}

/**
 * A memo keyed by a pair of values, bounded in pairs, that restarts when
 * full: a repeated pair gets the very value computed the first time (the
 * same object, so later lookups by it are cheap too). Lookups hash the two
 * values as they are, never a joined key.
 */
export class PairMemo<A, B, V> {
  readonly #limit: number
  readonly #compute: (first: A, second: B) => V
  readonly #byFirst = new Map<A, Map<B, V>>()
  #size = 0

  constructor (limit: number, compute: (first: A, second: B) => V) {
    this.#limit = limit
    this.#compute = compute
  }

  get (first: A, second: B): V {
    const known = this.#byFirst.get(first)?.get(second)
    if (known !== undefined) return known
    if (this.#size >= this.#limit) {
      this.#byFirst.clear()
      this.#size = 0
    }
    const value = this.#compute(first, second)
    let bySecond = this.#byFirst.get(first)
    if (bySecond === undefined) {
      bySecond = new Map()
      this.#byFirst.set(first, bySecond)
    }
    bySecond.set(second, value)
    this.#size++
    return value
  }
}
