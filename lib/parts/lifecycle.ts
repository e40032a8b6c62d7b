/**
 * The life of an endpoint's shared parts (event bus, answer router): claimed
 * at registration, given or made in memory, wired to the endpoint, awaited
 * until ready (bounded), and closed once with the app.
 *
 * A part serves one endpoint for its whole life: the endpoint closes it
 * when its app closes, and a router hands answers to the one receiver
 * attached to it. A second endpoint given the same object would lose its
 * answers to the first and its bus at the first one's close, so
 * registration refuses it up front.
 */
import { FST_MCP_INVALID_OPTION, FST_MCP_SCALE_UNAVAILABLE } from '../errors.js'
import { type AnswerReceiver, type AnswerRouter, MemoryAnswerRouter } from './answer-router.js'
import { type EventBus, type McpEventListener, MemoryEventBus } from './event-bus.js'
import { type CatalogStore, MemoryCatalogStore } from './catalog-store.js'
import { boundedWait } from '../common/timers.js'

/** Bound on waiting for the shared parts at registration, whatever bounds of their own they keep. */
const READY_LIMIT_MS = 30_000

const claimed = new WeakSet<object>()

/** Marks each given part as this endpoint's; throws, claiming none, when another endpoint (open or closed) has one. */
export function claimParts (parts: Readonly<Record<string, object | undefined>>): void {
  const given = Object.entries(parts).filter((entry): entry is [string, object] => entry[1] !== undefined)
  for (const [option, part] of given) {
    if (claimed.has(part)) {
      throw new FST_MCP_INVALID_OPTION(option, 'is already used by another endpoint (it closes with that one, and a router answers only one): give each endpoint its own, e.g. call redisScale() once per endpoint')
    }
  }
  for (const [, part] of given) claimed.add(part)
}

export interface GivenParts {
  readonly eventBus: EventBus | undefined
  readonly answerRouter: AnswerRouter | undefined
  readonly catalogStore?: CatalogStore | undefined
}

/** The endpoint's event bus, answer router and catalogue store, from claim to close. */
export class SharedParts {
  readonly bus: EventBus
  readonly router: AnswerRouter
  readonly catalog: CatalogStore
  /** Whether the event bus was given (other instances may share it), rather than made here in memory for this instance alone. */
  readonly sharedBus: boolean
  #stopListening: (() => void) | undefined
  #stopGapListening: (() => void) | undefined
  #closed: Promise<void> | undefined

  /** Claims the given parts (see `claimParts`) and makes the missing ones in memory. */
  constructor (given: GivenParts) {
    claimParts({ 'scale.eventBus': given.eventBus, 'scale.answerRouter': given.answerRouter, 'scale.catalogStore': given.catalogStore })
    this.sharedBus = given.eventBus !== undefined
    this.bus = given.eventBus ?? new MemoryEventBus()
    this.router = given.answerRouter ?? new MemoryAnswerRouter()
    this.catalog = given.catalogStore ?? new MemoryCatalogStore()
  }

  /**
   * Wires the endpoint in (`onEvent` hears every event the bus delivers, `onAnswer`
   * every legacy answer forwarded here, `onReconnect` each time a bus that was cut
   * off delivers again) and waits for the parts that say when they are ready,
   * bounded; on failure closes them and throws FST_MCP_SCALE_UNAVAILABLE.
   */
  async open (onEvent: McpEventListener, onAnswer: AnswerReceiver, onReconnect: () => void): Promise<void> {
    this.router.attach(onAnswer)
    // Subscribed before waiting: a shared bus is ready once its subscription is confirmed.
    this.#stopListening = this.bus.subscribe(onEvent)
    this.#stopGapListening = this.bus.onReconnect?.(onReconnect)
    const waits = [this.bus, this.router].flatMap((part) => part.ready === undefined ? [] : [part.ready()])
    if (waits.length === 0) return
    try {
      await boundedWait(Promise.all(waits), READY_LIMIT_MS)
    } catch (err) {
      await this.close().catch(() => {})
      throw new FST_MCP_SCALE_UNAVAILABLE(err instanceof Error ? err.message : String(err), { cause: err })
    }
  }

  /** Stops listening and closes both parts; idempotent. */
  close (): Promise<void> {
    this.#closed ??= (async () => {
      this.#stopListening?.()
      this.#stopGapListening?.()
      await Promise.all([this.bus.close(), this.router.close(), this.catalog.close()])
    })()
    return this.#closed
  }
}
