/**
 * Legacy answers forwarded through Redis: each instance subscribes to its own
 * channel (`<prefix>answers:<instance id>`), and the ids of its
 * server-to-client requests start with that instance id. A client's answer
 * POSTed to any instance is published on the channel its id names (or
 * handed over directly when the id is this instance's own).
 *
 * The instance id only picks a channel; the waiting request is still found
 * by its whole id, which holds a random UUID. An id that names no well-formed
 * instance is dropped without touching Redis.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import type { AnswerReceiver, AnswerRouter } from '../parts/answer-router.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { ConnectionUse } from './connection-use.js'
import { type RedisConnection, type RedisConnectionOptions } from './redis-connection.js'

export const ANSWERS_CHANNEL = 'answers:'
/** 12 random bytes in base64url. */
const INSTANCE_ID = /^[A-Za-z0-9_-]{16}$/

export class RedisAnswerRouter implements AnswerRouter {
  readonly #use: ConnectionUse
  readonly #instance = randomBytes(12).toString('base64url')
  #receive: AnswerReceiver | undefined
  #subscribed: Promise<void> | undefined
  #unsubscribe: (() => void) | undefined
  #closed = false

  constructor (connection: RedisConnection | RedisConnectionOptions) {
    this.#use = new ConnectionUse(connection)
  }

  /** The connection, retained from this part's first command (lib/redis/connection-use.ts). */
  get #connection (): RedisConnection {
    return this.#use.get()
  }

  requestId (): string {
    return `${this.#instance}.${randomUUID()}`
  }

  attach (receive: AnswerReceiver): void {
    this.#receive = receive
    if (this.#subscribed === undefined && !this.#closed) this.#subscribed = this.#listen()
  }

  forward (answer: JsonObject, caller: string): Promise<void> {
    const id = answer.id
    if (typeof id !== 'string') return Promise.resolve()
    const dot = id.indexOf('.')
    const instance = id.slice(0, dot)
    if (dot === -1 || !INSTANCE_ID.test(instance)) return Promise.resolve()
    if (instance === this.#instance) {
      this.#receive?.(answer, caller)
      return Promise.resolve()
    }
    if (this.#closed) return Promise.resolve()
    return this.#connection.publish(this.#channel(instance), JSON.stringify({ caller, answer })).then(() => {})
  }

  async ready (): Promise<void> {
    if (this.#receive !== undefined && this.#subscribed === undefined && !this.#closed) this.#subscribed = this.#listen()
    await Promise.all([this.#connection.ready(), this.#subscribed])
  }

  async close (): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#receive = undefined
    this.#subscribed = undefined
    this.#unsubscribe?.()
    this.#unsubscribe = undefined
    await this.#use.release()
  }

  #channel (instance: string): string {
    return this.#use.connection.prefix + ANSWERS_CHANNEL + instance
  }

  #listen (): Promise<void> {
    const subscribing = this.#connection.subscribe(this.#channel(this.#instance), (message) => {
      let routed: unknown
      try {
        routed = JSON.parse(message)
      } catch {
        return
      }
      if (!isRoutedAnswer(routed)) return
      this.#receive?.(routed.answer, routed.caller)
    }).then((unsubscribe) => {
      if (this.#subscribed !== subscribing) unsubscribe()
      else this.#unsubscribe = unsubscribe
    })
    subscribing.catch(() => {
      if (this.#subscribed === subscribing) this.#subscribed = undefined
    })
    return subscribing
  }
}

/** What travels on an instance's channel: the answer and who POSTed it. */
function isRoutedAnswer (value: unknown): value is { caller: string, answer: JsonObject } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const { caller, answer } = value as Record<string, unknown>
  return typeof caller === 'string' && answer !== null && typeof answer === 'object' && !Array.isArray(answer)
}
