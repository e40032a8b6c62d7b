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
 *
 * What an outage loses is made good once Redis is back: when a connection
 * that was lost is ready again, the bus publishes probes until it hears its
 * own (so the subscription is live again), sends again what it could not
 * send meanwhile (the latest event per list, resource, task and log level,
 * at most MAX_UNSENT), then calls its `onReconnect` listeners, which tell
 * this instance's streams that anything may have changed.
 */
import { randomBytes } from 'node:crypto'
import { deliver, type EventBus, isMcpEvent, ListenerList, type McpEvent, type McpEventListener } from '../parts/event-bus.js'
import { ConnectionUse } from './connection-use.js'
import { type RedisConnection, type RedisConnectionOptions } from './redis-connection.js'

export const EVENTS_CHANNEL = 'events'
/** Most events kept to send again after an outage (the latest per list, resource, task and log level). */
export const MAX_UNSENT = 1000
/** Between probes while waiting for the subscription to carry messages again. */
const PROBE_EVERY_MS = 200
/** A probe's body, after the origin: not JSON, so other instances ignore it. */
const PROBE = '?'

/** What an unsent event replaces: an older event about the same thing. */
function unsentKey (event: McpEvent): string {
  switch (event.type) {
    case 'listChanged': return 'list:' + event.list
    case 'resourceUpdated': return 'uri:' + event.uri
    case 'taskStatus': return 'task:' + String(event.task.taskId)
    case 'logLevel': return 'level'
    // The last change of a definition is what counts; a confirmation sent late is harmless.
    case 'definitionChanged': return 'definition:' + event.list + ':' + event.name
    case 'definitionApplied': return 'applied:' + event.id
    case 'changeSettled': return 'settled:' + event.id
    case 'namedChange': return 'named:' + event.name
    case 'sessionChanged':
    case 'sessionEnded': return 'session:' + event.session
  }
}

/** The wire form: `<origin> <event JSON>`; origin ids hold no space. */
function encode (origin: string, event: McpEvent): string {
  return origin + ' ' + JSON.stringify(event)
}

export class RedisEventBus implements EventBus {
  readonly #use: ConnectionUse
  readonly #channel: string
  readonly #origin = randomBytes(12).toString('base64url')
  readonly #listeners = new ListenerList()
  readonly #reconnectListeners = new Set<() => void>()
  readonly #stopWatching: () => void
  /** Events that could not be sent, by what they are about (see unsentKey). */
  readonly #unsent = new Map<string, McpEvent>()
  #unsubscribe: (() => void) | undefined
  #subscribed: Promise<void> | undefined
  #closed = false
  /** The probe being waited for, while one is out. */
  #probe: { token: string, heard: () => void } | undefined
  #confirming = false

  /** Takes the shared connection of `redisScale()`, or options to make its own. */
  constructor (connection: RedisConnection | RedisConnectionOptions) {
    this.#use = new ConnectionUse(connection)
    this.#channel = this.#use.connection.prefix + EVENTS_CHANNEL
    this.#stopWatching = this.#use.connection.onReconnect(() => { void this.#confirmReconnect() })
  }

  /** The connection, retained from this part's first command (lib/redis/connection-use.ts). */
  get #connection (): RedisConnection {
    return this.#use.get()
  }

  /** Resolves with how many subscriptions received it (every connected instance, this one included). */
  publish (event: McpEvent): Promise<number | void> {
    if (!isMcpEvent(event)) return Promise.reject(new TypeError('publish(event): not an MCP event (listChanged, resourceUpdated or taskStatus)'))
    const failure = deliver(this.#listeners.current, event)
    if (this.#closed) return failure === undefined ? Promise.resolve() : Promise.reject(failure)
    const sent = this.#send(event)
    return failure === undefined ? sent : sent.then(() => { throw failure })
  }

  onReconnect (listener: () => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('onReconnect(listener): listener must be a function')
    const entry = (): void => listener()
    this.#reconnectListeners.add(entry)
    return () => { this.#reconnectListeners.delete(entry) }
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
    this.#reconnectListeners.clear()
    this.#unsent.clear()
    this.#stopWatching()
    this.#probe = undefined
    this.#stopListening()
    await this.#use.release()
  }

  /** Sends `event` to the other instances; kept to send again if Redis cannot take it now. */
  /** Resolves with how many subscriptions received it. */
  async #send (event: McpEvent): Promise<number> {
    const key = unsentKey(event)
    try {
      const reached = await this.#connection.publish(this.#channel, encode(this.#origin, event))
      this.#unsent.delete(key)
      return reached
    } catch (err) {
      if (!this.#closed && (this.#unsent.has(key) || this.#unsent.size < MAX_UNSENT)) {
        this.#unsent.delete(key)
        this.#unsent.set(key, event)
      }
      throw err
    }
  }

  /**
   * A connection is back: probe until the subscription carries messages
   * again, send what could not be sent, then tell the reconnect listeners.
   * One round at a time; it ends when the bus closes.
   */
  async #confirmReconnect (): Promise<void> {
    if (this.#confirming) return
    this.#confirming = true
    try {
      while (!this.#closed && this.#listeners.size > 0 && !(await this.#probeHeard())) {
        await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS).unref())
      }
      if (this.#closed) return
      for (const [key, event] of [...this.#unsent]) {
        try {
          await this.#connection.publish(this.#channel, encode(this.#origin, event))
          if (this.#unsent.get(key) === event) this.#unsent.delete(key)
        } catch {
          // Redis went again: the next reconnection sends the rest.
          return
        }
      }
      for (const listener of this.#reconnectListeners) {
        try {
          listener()
        } catch {
          // One listener's fault does not keep the others from hearing.
        }
      }
    } finally {
      this.#confirming = false
    }
  }

  /** Publishes one probe; true once this bus hears it back (within a bounded wait). */
  async #probeHeard (): Promise<boolean> {
    const token = randomBytes(9).toString('base64url')
    let timer: NodeJS.Timeout | undefined
    const heard = new Promise<boolean>((resolve) => {
      this.#probe = { token, heard: () => resolve(true) }
      timer = setTimeout(() => resolve(false), Math.max(PROBE_EVERY_MS, this.#connection.commandTimeoutMs))
    })
    try {
      // A subscription that failed while Redis was away is made again now.
      if (this.#subscribed === undefined && this.#listeners.size > 0) this.#subscribed = this.#listen()
      await this.#subscribed
      await this.#connection.publish(this.#channel, this.#origin + ' ' + PROBE + token)
      return await heard
    } catch {
      return false
    } finally {
      clearTimeout(timer)
      if (this.#probe?.token === token) this.#probe = undefined
    }
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
    if (space <= 0) return
    if (message.slice(0, space) === this.#origin) {
      // Our own event comes back: skipped. Our probe: the subscription is live.
      const probe = this.#probe
      if (probe !== undefined && message.slice(space + 1) === PROBE + probe.token) probe.heard()
      return
    }
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
