/**
 * The event bus: how a change made through one instance reaches the
 * `subscriptions/listen` streams held by every instance. `fastify.mcp.notify*()`
 * and the tasks service publish typed MCP events; each endpoint's subscription
 * registry subscribes once and fans each event out to its own streams
 * (filtering, acknowledgement and `subscriptionId` stay local, so the bus
 * carries one small message per change whatever the number of streams).
 *
 * `MemoryEventBus` is the default: one process, synchronous delivery, no
 * setup. Every bus delivers to its own instance's subscribers inside
 * `publish` (see `EventBus.publish`). A shared implementation (the `./redis` entry's `RedisEventBus`, or
 * your own) makes several instances behave as one.
 */
import type { JsonObject } from '../protocol/jsonrpc.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { isLogLevel, type LogLevel } from '../protocol/log-level.js'
import { LIST_NAMES, type ListName } from '../protocol/methods.js'

/** The lists that announce changes (the method table's `list.changed`). */
export type { ListName }
/** The catalogues `fastify.mcp` changes at runtime: the lists, and skills (whose files are resources). */
export type DefinitionList = ListName | 'skills'

export type DefinitionChange = 'remove' | 'disable' | 'enable'

const CHANGES: ReadonlySet<unknown> = new Set(['remove', 'disable', 'enable'])
/** Longer than any name a definition can have (tool names stop at 128; resource names are free text). */
const MAX_DEFINITION_NAME_CHARS = 4096

/** Bound on the reason an instance gives for a change it could not apply. */
const MAX_ERROR_CHARS = 1000

/** Most resources one legacy session may subscribe to. */
export const MAX_SESSION_URIS = 1000

/** A session id as the endpoint mints them (lib/endpoint/legacy-sessions.ts): 128 random bits, base64url. */
export function isSessionId (value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{22}$/.test(value)
}

function isSeq (value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value > 0)
}

/** Longest change id a well-formed event carries (the maker's are UUIDs: 36). */
const MAX_CHANGE_ID_CHARS = 64

/** Whether `value` can be a change's id: a non-empty string of bounded length. */
export function isChangeId (value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_CHANGE_ID_CHARS
}

export type McpEvent =
  | { type: 'listChanged', list: ListName }
  | { type: 'resourceUpdated', uri: string }
  /** `task` is the wire Task object; only streams of the task's owner that listen to its id hear it. */
  | { type: 'taskStatus', owner: string, task: JsonObject }
  /**
   * A definition removed, disabled or enabled through `fastify.mcp.tools` (or
   * prompts, resources) on one instance: every instance applies it to its own
   * catalogue and tells its own streams the list changed.
   */
  | { type: 'definitionChanged', list: DefinitionList, name: string, change: DefinitionChange, id?: string, seq?: number }
  /**
   * A named change (`fastify.mcp.changes.apply`): every instance runs its own
   * copy of the code defined under that name. `seq` is its place in the
   * catalogue store (lib/parts/catalog-store.ts).
   */
  | { type: 'namedChange', name: string, id: string, seq?: number }
  /** An instance applied the change of that `id` (the instance that made it waits for every one), or says why it could not. */
  | { type: 'definitionApplied', id: string, error?: string }
  /**
   * The change of that `id` settled on the instance that made it (every
   * instance confirmed it, or it stopped waiting): the instances holding what
   * it tells their listen streams tell it now (lib/definitions/settled-notices.ts).
   */
  | { type: 'changeSettled', id: string }
  /** A legacy session's subscriptions changed: the instances holding its streams follow `uris` from now on. */
  | { type: 'sessionChanged', session: string, uris: string[] }
  /** A legacy session ended (DELETE): its streams on every instance end. */
  | { type: 'sessionEnded', session: string }
  /** Legacy `logging/setLevel`: the level `caller` (`callerOf` in lib/handler/caller.ts) set, kept by every instance. */
  | { type: 'logLevel', caller: string, level: LogLevel }

export type McpEventListener = (event: McpEvent) => void

export interface EventBus {
  /**
   * Delivers `event` to every subscriber of every instance sharing the bus;
   * resolves once it is delivered (or accepted for delivery by the shared
   * medium), rejects when it could not be. It may resolve with how many
   * subscriptions of the shared medium received it, this instance's own
   * included (Redis: the answer to PUBLISH), which lets a change wait for
   * every other instance to confirm it.
   *
   * Delivery rule: a bus calls this instance's own subscribers synchronously,
   * inside `publish`, before it returns (whatever then happens with the other
   * instances, even when reaching them fails), and does not deliver again the
   * copy a shared medium brings back to its sender; `deliver()` below does the
   * local part. `MemoryEventBus` and `RedisEventBus` keep it. It is what
   * `fastify.mcp.notify*()` count: the streams of this instance an event
   * reached during `publish`. A bus that delivers its own events later still
   * carries them to every stream, but `notify*()` then report 0.
   */
  publish (event: McpEvent): Promise<void | number>
  /** Calls `listener` with every event published from now on; returns the function that stops it. */
  subscribe (listener: McpEventListener): () => void
  /** Releases what the bus holds (connections, listeners); later publishes deliver nothing. */
  close (): Promise<void>
  /**
   * Optional: resolves once the bus can deliver (e.g. its connections are up),
   * rejects when it cannot. The endpoint awaits it at registration, bounded.
   */
  ready?: () => Promise<void>
  /**
   * Optional, for a shared bus that can be cut off: calls `listener` each
   * time the bus delivers again after an interruption, during which events
   * may have been lost (published elsewhere while this instance could not
   * hear, or not sent from here). The endpoint then tells its own listen
   * streams that their lists and resources may have changed. Returns the
   * function that stops it.
   */
  onReconnect?: (listener: () => void) => () => void
}

const LISTS: ReadonlySet<unknown> = new Set(LIST_NAMES)
/** The catalogues a runtime change may name. */
export const DEFINITION_LISTS: ReadonlySet<unknown> = new Set([...LISTS, 'skills'])

/** Whether `value` is a well-formed McpEvent (events arriving from a shared medium are checked before use). */
export function isMcpEvent (value: unknown): value is McpEvent {
  if (!isJsonObject(value)) return false
  switch (value.type) {
    case 'listChanged':
      return LISTS.has(value.list)
    case 'resourceUpdated':
      return typeof value.uri === 'string'
    case 'taskStatus':
      return typeof value.owner === 'string' && isJsonObject(value.task) && typeof value.task.taskId === 'string' &&
        typeof value.task.status === 'string'
    case 'definitionChanged':
      return DEFINITION_LISTS.has(value.list) && typeof value.name === 'string' && value.name.length <= MAX_DEFINITION_NAME_CHARS && CHANGES.has(value.change) &&
        (value.id === undefined || isChangeId(value.id)) && isSeq(value.seq)
    case 'namedChange':
      return typeof value.name === 'string' && value.name.length <= MAX_DEFINITION_NAME_CHARS && isChangeId(value.id) && isSeq(value.seq)
    case 'definitionApplied':
      return isChangeId(value.id) && (value.error === undefined || (typeof value.error === 'string' && value.error.length <= MAX_ERROR_CHARS))
    case 'changeSettled':
      return isChangeId(value.id)
    case 'logLevel':
      return typeof value.caller === 'string' && isLogLevel(value.level)
    case 'sessionChanged':
      return isSessionId(value.session) && Array.isArray(value.uris) && value.uris.length <= MAX_SESSION_URIS &&
        value.uris.every((uri) => typeof uri === 'string' && uri.length <= MAX_DEFINITION_NAME_CHARS)
    case 'sessionEnded':
      return isSessionId(value.session)
  }
  return false
}

const DELIVERED: Promise<void> = Promise.resolve()

/**
 * Calls each listener in turn; one that throws does not keep the event from
 * the others. Returns the first error thrown, if any.
 */
export function deliver (listeners: readonly McpEventListener[], event: McpEvent): unknown {
  let failure: unknown
  for (let i = 0; i < listeners.length; i++) {
    try {
      (listeners[i] as McpEventListener)(event)
    } catch (err) {
      failure ??= err
    }
  }
  return failure
}

/**
 * Listeners kept in an array replaced on every change (copy on write): a
 * publish iterates a snapshot without allocating, and a listener that
 * unsubscribes during delivery does not disturb it.
 */
export class ListenerList {
  #listeners: readonly McpEventListener[] = []

  get current (): readonly McpEventListener[] {
    return this.#listeners
  }

  get size (): number {
    return this.#listeners.length
  }

  add (listener: McpEventListener): () => void {
    if (typeof listener !== 'function') throw new TypeError('subscribe(listener): listener must be a function')
    // A wrapper per subscription: the same function subscribed twice is two subscriptions, each removed on its own.
    const entry: McpEventListener = (event) => listener(event)
    this.#listeners = [...this.#listeners, entry]
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== entry)
    }
  }

  clear (): void {
    this.#listeners = []
  }
}

/** One process, synchronous delivery: every subscriber has heard the event when `publish` returns. */
export class MemoryEventBus implements EventBus {
  readonly #listeners = new ListenerList()

  publish (event: McpEvent): Promise<void> {
    const failure = deliver(this.#listeners.current, event)
    return failure === undefined ? DELIVERED : Promise.reject(failure)
  }

  subscribe (listener: McpEventListener): () => void {
    return this.#listeners.add(listener)
  }

  async close (): Promise<void> {
    this.#listeners.clear()
  }
}
