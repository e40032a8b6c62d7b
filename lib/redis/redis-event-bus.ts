/**
 * The event bus on Redis pub/sub: every instance publishes its events on one
 * channel (`<prefix>events`) and hears the others' there.
 *
 * An event is delivered to this instance's own subscribers at once, in
 * `publish`, like the in-memory bus (a single instance loses no speed), and
 * sent on the channel stamped with this bus's random origin id; the copy that
 * comes back from Redis is recognised by that id and skipped.
 *
 * Pub/sub delivers to the instances connected at that moment: while Redis is
 * away, `publish` still reaches the local subscribers and then rejects, and
 * the subscription comes back by itself with the connection. Messages from
 * the channel are parsed and checked before any listener sees them.
 */
import { randomBytes } from 'node:crypto'
import { deliver, type EventBus, isMcpEvent, ListenerList, type McpEvent, type McpEventListener } from '../parts/event-bus.js'
import { connectionFrom, type RedisConnection, type RedisConnectionOptions } from './redis-connection.js'

export const EVENTS_CHANNEL = 'events'

/** The wire form: `<origin> <event JSON>`; origin ids hold no space. */
function encode (origin: string, event: McpEvent): string {
  return origin + ' ' + JSON.stringify(event)
}

export class RedisEventBus implements EventBus {
  readonly #connection: RedisConnection
  readonly #channel: string
  readonly #origin = randomBytes(12).toString('base64url')
  readonly #listeners = new ListenerList()
  #unsubscribe: (() => void) | undefined
  #subscribed: Promise<void> | undefined
  #closed = false

  /** Takes the shared connection of `redisScale()`, or options to make its own. */
  constructor (connection: RedisConnection | RedisConnectionOptions) {
    this.#connection = connectionFrom(connection).retain()
    this.#channel = this.#connection.prefix + EVENTS_CHANNEL
  }

  /** Resolves with how many subscriptions received it (every connected instance, this one included). */
  publish (event: McpEvent): Promise<number | void> {
    if (!isMcpEvent(event)) return Promise.reject(new TypeError('publish(event): not an MCP event (listChanged, resourceUpdated or taskStatus)'))
    const failure = deliver(this.#listeners.current, event)
    if (this.#closed) return failure === undefined ? Promise.resolve() : Promise.reject(failure)
    const sent = this.#connection.publish(this.#channel, encode(this.#origin, event))
    return failure === undefined ? sent : sent.then(() => { throw failure })
  }

  subscribe (listener: McpEventListener): () => void {
    const remove = this.#listeners.add(listener)
    if (this.#subscribed === undefined && !this.#closed) this.#subscribed = this.#listen()
    return () => {
      remove()
      if (this.#listeners.size === 0) this.#stopListening()
    }
  }

  /** Resolves once Redis is reachable and, when anyone listens, the channel subscription is confirmed. */
  async ready (): Promise<void> {
    if (this.#listeners.size > 0 && this.#subscribed === undefined && !this.#closed) this.#subscribed = this.#listen()
    await Promise.all([this.#connection.ready(), this.#subscribed])
  }

  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#listeners.clear()
    this.#stopListening()
    await this.#connection.release()
  }

  #listen (): Promise<void> {
    const subscribing = this.#connection.subscribe(this.#channel, (message) => this.#receive(message)).then((unsubscribe) => {
      // Everyone may have left (or the bus closed) while SUBSCRIBE was on its way.
      if (this.#subscribed !== subscribing) unsubscribe()
      else this.#unsubscribe = unsubscribe
    })
    // ready() reports a failure; nobody else awaits it.
    subscribing.catch(() => {
      if (this.#subscribed === subscribing) this.#subscribed = undefined
    })
    return subscribing
  }

  #stopListening (): void {
    this.#subscribed = undefined
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
  }

  #receive (message: string): void {
    const space = message.indexOf(' ')
    if (space <= 0 || message.slice(0, space) === this.#origin) return
    let event: unknown
    try {
      event = JSON.parse(message.slice(space + 1))
    } catch {
      return
    }
    if (!isMcpEvent(event)) return
    // A listener's exception stays with it; the other listeners still hear the event.
    deliver(this.#listeners.current, event)
  }
}
