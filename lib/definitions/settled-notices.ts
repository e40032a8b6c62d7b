/**
 * When listen streams hear a change shared between instances (`remove`,
 * `disable`, `enable`, named changes: lib/definitions/shared-catalog.ts):
 * once it is in effect on every instance the bus reached, not as soon as
 * this instance applied it. A client told earlier re-lists through the
 * balancer, may reach an instance whose bus has not delivered the change
 * yet, gets the old list and is never told again.
 *
 * So what a shared change tells (`list_changed`, `resources/updated`) is
 * held while it is applied: on the instance that made it until its
 * confirmations are in (lib/definitions/confirmed-changes.ts), which then
 * publishes `changeSettled` with the change's id; on every other instance
 * until it hears that event. Clients must hear eventually: an instance that
 * never hears it (the maker crashed, the bus was cut) tells after
 * SETTLE_FALLBACK_MS, and a change that could not be confirmed is settled
 * all the same. A hold tells each list and URI once, however often the
 * change told it.
 *
 * A bus may deliver `changeSettled` before the change itself (a custom bus
 * that re-sends or reorders). Such an id is remembered, for the fallback's
 * duration and at most MAX_SETTLED_EARLY of them (oldest forgotten first),
 * and the change, when it comes, is told at once instead of waiting out the
 * fallback. Ids come from other instances: one that is not a well-formed
 * change id (lib/parts/event-bus.ts) is never remembered nor held on.
 *
 * One instance (the in-memory bus the endpoint made itself) holds nothing:
 * its streams hear a change at once. `add` and `update` made directly, the
 * catch-up at ready or after a bus cut, and `notify*()` are not held.
 */
import { BoundedMemo } from '../common/bounded-memo.js'
import { isChangeId, type ListName } from '../parts/event-bus.js'
import { CONFIRM_TIMEOUT_MS } from './confirmed-changes.js'

/** Bound on holding a heard change's notices without hearing that it settled: the maker's wait, and time for its word to travel. */
export const SETTLE_FALLBACK_MS = CONFIRM_TIMEOUT_MS + 2000
/** Most changes held at once; past it a change is told at once, as if not shared. */
export const MAX_HELD_CHANGES = 1000
/** Most ids remembered as settled before their change was heard. */
export const MAX_SETTLED_EARLY = 1000

/** What this instance's listen streams are told. */
export interface ListNotices {
  listChanged (list: ListName): void
  resourceUpdated (uri: string): void
}

/** What one change told while it was applied: each list and URI once, lists first (the order it is told in). */
interface Hold {
  /** The change's id, for a change heard from another instance. */
  readonly id: string | undefined
  readonly lists: Set<ListName>
  readonly uris: Set<string>
  timer: NodeJS.Timeout | undefined
}

export class SettledNotices implements ListNotices {
  readonly #tell: ListNotices
  readonly #holds: boolean
  readonly #fallbackMs: number
  /** Heard changes' holds, by change id. */
  readonly #byId = new Map<string, Hold>()
  /** Every hold waiting to be told (heard and made here), for the bound and for close. */
  readonly #open = new Set<Hold>()
  /** Ids heard settled while nothing was held for them, with when they are forgotten; oldest first, the oldest dropped when full. */
  readonly #settledEarly = new BoundedMemo<string, number>(MAX_SETTLED_EARLY, 'oldest')
  readonly #now: () => number
  /** The hold of the change being applied now (changes apply synchronously). */
  #current: Hold | undefined
  #closed = false

  /**
   * `holds`: false on a single instance (nothing to wait for: told at once).
   * `fallbackMs`: how long a hold waits at most, and how long an id settled early is remembered.
   * `now`: the clock (milliseconds, never going back) that ages those ids.
   */
  constructor (tell: ListNotices, options: { holds: boolean, fallbackMs?: number, now?: () => number }) {
    this.#tell = tell
    this.#holds = options.holds
    this.#fallbackMs = options.fallbackMs ?? SETTLE_FALLBACK_MS
    this.#now = options.now ?? performance.now.bind(performance)
  }

  /** Whether changes are held: other instances may share the bus (they hold too, and wait for `changeSettled`). */
  get holds (): boolean {
    return this.#holds
  }

  listChanged (list: ListName): void {
    if (this.#current !== undefined) this.#current.lists.add(list)
    else this.#tell.listChanged(list)
  }

  resourceUpdated (uri: string): void {
    if (this.#current !== undefined) this.#current.uris.add(uri)
    else this.#tell.resourceUpdated(uri)
  }

  /**
   * Runs `apply`, a change made here; what it tells is held until the
   * returned function is called (once its sharing settled), or the bound.
   * Code that throws has what it told before throwing told at once.
   */
  holdWhile (apply: () => void): () => void {
    const hold = this.#hold(undefined)
    if (hold === undefined) {
      apply()
      return () => {}
    }
    try {
      this.#during(hold, apply)
    } catch (err) {
      this.#flush(hold)
      throw err
    }
    this.#keep(hold)
    return () => this.#release(hold)
  }

  /** Runs `apply`, a change heard under `id`; what it tells is held until `settled(id)`, or the bound. */
  holdUntilSettled<T> (id: string, apply: () => T): T {
    // The same change heard again adds to its hold.
    const held = this.#byId.get(id)
    if (held !== undefined) return this.#during(held, apply)
    // Settled already (heard before the change), or an id `settled` would never match: nothing to wait for.
    if (!isChangeId(id) || this.#wasSettledEarly(id)) return apply()
    const hold = this.#hold(id)
    if (hold === undefined) return apply()
    try {
      return this.#during(hold, apply)
    } finally {
      this.#keep(hold)
    }
  }

  /** The change of `id` is in effect everywhere it could be: streams hear it now. */
  settled (id: string): void {
    const hold = this.#byId.get(id)
    if (hold !== undefined) this.#release(hold)
    else this.#rememberSettled(id)
  }

  /** The endpoint closes (its streams ended first): nothing more is told. */
  close (): void {
    this.#closed = true
    for (const hold of this.#open) clearTimeout(hold.timer)
    this.#open.clear()
    this.#byId.clear()
    this.#settledEarly.clear()
  }

  /** Remembers an id settled before its change was heard (or after it told nothing), bounded by count and age. */
  #rememberSettled (id: string): void {
    if (!this.#holds || this.#closed || !isChangeId(id)) return
    const now = this.#now()
    this.#forgetExpired(now)
    // Heard again: remembered anew, as the newest.
    this.#settledEarly.set(id, now + this.#fallbackMs)
  }

  #wasSettledEarly (id: string): boolean {
    this.#forgetExpired(this.#now())
    return this.#settledEarly.has(id)
  }

  /** Forgets the ids remembered for the fallback's duration already (the oldest come first, all live as long). */
  #forgetExpired (now: number): void {
    for (const [id, until] of this.#settledEarly.entries()) {
      if (until > now) return
      this.#settledEarly.delete(id)
    }
  }

  /** A new hold, or none when this instance tells at once (one instance, closed, or too many held). */
  #hold (id: string | undefined): Hold | undefined {
    if (!this.#holds || this.#closed || this.#open.size >= MAX_HELD_CHANGES) return undefined
    return { id, lists: new Set(), uris: new Set(), timer: undefined }
  }

  #during<T> (hold: Hold, apply: () => T): T {
    // Saved and restored: a named change's code may itself make a shared change, which holds on its own.
    const outer = this.#current
    this.#current = hold
    try {
      return apply()
    } finally {
      this.#current = outer
    }
  }

  /** Keeps a hold that told something until it is released, bounded; one that told nothing needs no keeping. */
  #keep (hold: Hold): void {
    if (hold.lists.size === 0 && hold.uris.size === 0) return
    this.#open.add(hold)
    if (hold.id !== undefined) this.#byId.set(hold.id, hold)
    hold.timer = setTimeout(() => this.#release(hold), this.#fallbackMs)
    hold.timer.unref()
  }

  /** Tells what a kept hold held, once. */
  #release (hold: Hold): void {
    if (!this.#open.delete(hold)) return
    clearTimeout(hold.timer)
    if (hold.id !== undefined) this.#byId.delete(hold.id)
    this.#flush(hold)
  }

  #flush (hold: Hold): void {
    if (this.#closed) return
    for (const list of hold.lists) this.#tell.listChanged(list)
    for (const uri of hold.uris) this.#tell.resourceUpdated(uri)
  }
}
