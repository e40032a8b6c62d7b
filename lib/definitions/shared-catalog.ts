/**
 * Runtime catalogue changes that hold on every instance, now and later.
 *
 * - `remove`, `disable`, `enable` (lib/definitions/live.ts) are applied here
 *   at once, recorded in the catalogue store (lib/parts/catalog-store.ts),
 *   which gives them a sequence number, and published on the event bus;
 *   every other instance applies them and confirms (confirmed-changes.ts).
 * - `add` and `update` carry code, which cannot travel. The app defines the
 *   code under a name on every instance (`fastify.mcp.changes.define`, before
 *   ready: the same code everywhere) and applies it by name
 *   (`fastify.mcp.changes.apply`): run here, recorded, published; every
 *   other instance runs its own copy and confirms, or says why it could not
 *   (no change of that name, or the code threw), which makes the call reject.
 *
 * Convergence rule: the latest recorded change of each subject (a
 * definition, a named change) wins, by the store's sequence number. An
 * event heard with a number at or below the one applied here for its
 * subject is stale and skipped, so out-of-order delivery cannot undo a newer
 * change. An instance reads the store at ready (before its first request)
 * and again whenever its event bus is back after a cut, applying what it has
 * not applied yet, in order.
 *
 * Listen streams hear a shared change once it is in effect on every
 * instance the bus reached (settled-notices.ts): what applying it tells is
 * held, here until its confirmations are in, elsewhere until the maker says
 * so (`changeSettled`).
 */
import { FST_MCP_INVALID_OPTION, FST_MCP_SCALE_UNAVAILABLE, FST_MCP_UNKNOWN_DEFINITION } from '../errors.js'
import { type CatalogChange, type CatalogStore, type RecordedChange, subjectOf } from '../parts/catalog-store.js'
import type { DefinitionChange, DefinitionList, EventBus, McpEvent } from '../parts/event-bus.js'
import { CONFIRM_TIMEOUT_MS, ConfirmedChanges } from './confirmed-changes.js'
import type { LiveCatalogs, LivePrompts, LiveResources, LiveTools } from './live.js'
import type { SettledNotices } from './settled-notices.js'

/** What a named change is given: the runtime handles of this instance's catalogues. */
export interface NamedChangeTarget {
  readonly tools: LiveTools
  readonly prompts: LivePrompts
  readonly resources: LiveResources
}

/** A named change: adds or replaces definitions on this instance; may run again later (write it so: `has(name) ? update : add`). */
export type NamedChange = (mcp: NamedChangeTarget) => void

/** `fastify.mcp.changes`: add and update on every instance, by name. */
export interface NamedChanges {
  /**
   * Defines the code of a change under `name` on this instance; call it with
   * the same code on every instance, before the app is ready (startup code).
   */
  define (name: string, change: NamedChange): void
  /**
   * Runs the change here, records it (an instance started later runs it
   * before its first request) and has every other instance run its own copy;
   * resolves once every other instance confirmed, rejects (coded
   * FST_MCP_SCALE_UNAVAILABLE) when one could not, or could not be told.
   */
  apply (name: string): Promise<void>
  /** The names defined here. */
  names (): string[]
}

type Heard = Extract<McpEvent, { type: 'definitionChanged' | 'namedChange' }>

export class SharedCatalog {
  readonly #store: CatalogStore
  readonly #confirmations: ConfirmedChanges
  readonly #notices: SettledNotices
  readonly #named = new Map<string, NamedChange>()
  /** The sequence number applied here, per subject. */
  readonly #applied = new Map<string, number>()
  /** Subjects this instance is recording: events about them wait until its own number is known. */
  readonly #recording = new Map<string, Heard[]>()
  #live: LiveCatalogs | undefined
  #ready = false

  /** `notices`: what the catalogues tell this instance's streams goes through it, so a shared change's notices can be held. */
  constructor (store: CatalogStore, bus: EventBus, notices: SettledNotices) {
    this.#store = store
    // A bus whose changes are held (shared) is one whose changes are said to have settled.
    this.#confirmations = new ConfirmedChanges(bus, CONFIRM_TIMEOUT_MS, notices.holds)
    this.#notices = notices
  }

  /** The catalogues the changes apply to (made after this, as their hooks call `share`). */
  attach (live: LiveCatalogs): void {
    this.#live = live
  }

  get changes (): NamedChanges {
    return {
      define: (name, change) => this.#define(name, change),
      apply: (name) => this.#applyNamed(name),
      names: () => [...this.#named.keys()]
    }
  }

  /**
   * A remove, disable or enable made here: `applyHere` runs at once (before
   * this returns its promise), then the change is recorded and told to every
   * other instance; this instance's streams hear it once that settled.
   */
  async share (list: DefinitionList, name: string, change: DefinitionChange, applyHere: () => void): Promise<void> {
    const release = this.#notices.holdWhile(applyHere)
    try {
      const what = `the ${change} of "${name}"`
      const seq = await this.#record({ kind: 'definition', list, name, change }, what)
      await this.#tell(what, (id) => seq === undefined ? { type: 'definitionChanged', list, name, change, id } : { type: 'definitionChanged', list, name, change, id, seq })
    } finally {
      release()
    }
  }

  /** A change heard on the bus (this instance's own are skipped). */
  heard (event: Heard): void {
    if (this.#confirmations.isOwn(event.id as string)) return
    const subject = subjectOf(event.type === 'namedChange' ? { kind: 'named', name: event.name } : { kind: 'definition', list: event.list, name: event.name, change: event.change })
    const waiting = this.#recording.get(subject)
    if (waiting !== undefined) {
      waiting.push(event)
      return
    }
    this.#applyHeard(subject, event)
  }

  /** A confirmation heard on the bus. */
  confirmed (event: Extract<McpEvent, { type: 'definitionApplied' }>): void {
    this.#confirmations.confirmed(event)
  }

  /** A change settled on the instance that made it: what it told here is told now. */
  settled (event: Extract<McpEvent, { type: 'changeSettled' }>): void {
    this.#notices.settled(event.id)
  }

  /**
   * Applies what the store holds and this instance has not applied yet, in
   * order. At ready (named changes are defined by then); again after the bus
   * was cut off. Rejects when the store cannot be read.
   */
  async catchUp (log: { warn: (obj: object, msg: string) => void }): Promise<number> {
    this.#ready = true
    let records: RecordedChange[]
    try {
      records = await this.#store.read()
    } catch (err) {
      throw new FST_MCP_SCALE_UNAVAILABLE(`the catalogue store could not be read, so this instance may not serve the catalogue the others serve (${err instanceof Error ? err.message : String(err)})`, { cause: err })
    }
    let applied = 0
    for (const record of records) {
      const subject = subjectOf(record)
      if ((this.#applied.get(subject) ?? 0) >= record.seq || this.#recording.has(subject)) continue
      this.#applied.set(subject, record.seq)
      const error = this.#run(record)
      if (error !== undefined) log.warn({ change: record }, `MCP recorded catalogue change not applied here: ${error}`)
      applied++
    }
    return applied
  }

  close (): void {
    this.#confirmations.close()
    this.#notices.close()
  }

  #define (name: string, change: NamedChange): void {
    if (typeof name !== 'string' || name.length === 0 || name.length > 4096) throw new FST_MCP_INVALID_OPTION('changes.define(name)', 'expected a non-empty string of at most 4096 characters')
    if (typeof change !== 'function') throw new FST_MCP_INVALID_OPTION(`changes.define("${name}")`, 'expected a function of { tools, prompts, resources }')
    if (this.#ready) throw new FST_MCP_INVALID_OPTION(`changes.define("${name}")`, 'named changes are defined before the app is ready (an instance applies the recorded ones at ready)')
    if (this.#named.has(name)) throw new FST_MCP_INVALID_OPTION(`changes.define("${name}")`, 'a change of that name is defined already')
    this.#named.set(name, change)
  }

  async #applyNamed (name: string): Promise<void> {
    const change = this.#named.get(name)
    if (change === undefined) throw new FST_MCP_UNKNOWN_DEFINITION(`change "${String(name)}"`)
    // Here first: code that throws here is reported at once, and neither recorded nor sent.
    const release = this.#notices.holdWhile(() => change(this.#target()))
    try {
      const what = `the change "${name}"`
      const seq = await this.#record({ kind: 'named', name }, what)
      await this.#tell(what, (id) => seq === undefined ? { type: 'namedChange', name, id } : { type: 'namedChange', name, id, seq })
    } finally {
      release()
    }
  }

  /** Records a change made here; events about its subject heard meanwhile are settled once its number is known. */
  async #record (change: CatalogChange, what: string): Promise<number | undefined> {
    const subject = subjectOf(change)
    const waiting: Heard[] = this.#recording.get(subject) ?? []
    this.#recording.set(subject, waiting)
    let seq: number | undefined
    let failure: unknown
    try {
      seq = await this.#store.record(change)
      if (seq > (this.#applied.get(subject) ?? 0)) this.#applied.set(subject, seq)
    } catch (err) {
      failure = err
    } finally {
      this.#recording.delete(subject)
      for (const event of waiting) this.#applyHeard(subject, event)
    }
    if (failure !== undefined) {
      // Told to the running instances all the same; only later ones would miss it.
      await this.#tell(what, (id) => change.kind === 'named' ? { type: 'namedChange', name: change.name, id } : { type: 'definitionChanged', list: change.list, name: change.name, change: change.change, id })
        .catch(() => {})
      throw new FST_MCP_SCALE_UNAVAILABLE(`${what} is in effect on this instance, but could not be recorded in the catalogue store, so an instance started later would not apply it (${failure instanceof Error ? failure.message : String(failure)})`, { cause: failure })
    }
    return seq
  }

  async #tell (what: string, make: (id: string) => McpEvent): Promise<void> {
    try {
      await this.#confirmations.share(make)
    } catch (err) {
      throw new FST_MCP_SCALE_UNAVAILABLE(`${what} is in effect on this instance, but not confirmed by every other instance (${err instanceof Error ? err.message : String(err)})`, { cause: err })
    }
  }

  #applyHeard (subject: string, event: Heard): void {
    const seq = event.seq
    if (seq !== undefined) {
      // Stale: a newer change of the same subject is in effect here already.
      if ((this.#applied.get(subject) ?? 0) >= seq) {
        if (event.id !== undefined) this.#confirmations.confirm(event.id)
        return
      }
      this.#applied.set(subject, seq)
    }
    const change: CatalogChange = event.type === 'namedChange' ? { kind: 'named', name: event.name } : { kind: 'definition', list: event.list, name: event.name, change: event.change }
    // Its streams hear it once the maker says it settled (an event without an id cannot be settled: told at once).
    const error = event.id === undefined ? this.#run(change) : this.#notices.holdUntilSettled(event.id, () => this.#run(change))
    if (event.id !== undefined) this.#confirmations.confirm(event.id, error)
  }

  /** Applies one change here; returns why it could not be, if it could not. */
  #run (change: CatalogChange): string | undefined {
    const live = this.#live
    if (live === undefined) return 'the catalogues are not ready'
    if (change.kind === 'definition') {
      live.apply(change.list, change.name, change.change)
      return undefined
    }
    const named = this.#named.get(change.name)
    if (named === undefined) return `no change is defined under "${change.name}" on this instance`
    try {
      named(this.#target())
      return undefined
    } catch (err) {
      return `the change "${change.name}" threw: ${err instanceof Error ? err.message : String(err)}`
    }
  }

  #target (): NamedChangeTarget {
    const live = this.#live as LiveCatalogs
    return { tools: live.tools, prompts: live.prompts, resources: live.resources }
  }
}
