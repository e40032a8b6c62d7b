/**
 * What the reader does with each line of stdin while the connection is
 * saturated (`maxInFlight` messages in flight, lib/stdio/connection.ts).
 *
 * Pausing outright would stall a connection whose requests all wait on the
 * client (a legacy `ctx.elicit()`, sampling, roots): the answers that
 * would finish them sit unread behind the pause until the client-request
 * timeout fails them. So while saturated the reader goes on, bounded:
 * an answer to the server's question (an `id` with `result` or `error`, no
 * `method`) and `notifications/cancelled` go to the endpoint at once, since
 * they can only end work; a new request, any other notification or a line
 * that is not JSON-RPC waits here and goes, in the order read, as slots
 * free up. At most `maxInFlight` more messages (at least MIN_READ_AHEAD)
 * are taken in than the limit (in flight beyond it, or waiting here); past
 * that reading pauses as before, so a flood of bogus answers costs no more
 * than a flood of requests.
 */
import { waitAtMost } from '../common/timers.js'
import { isJsonObject, isRequestId, type JsonObject, type RequestId } from '../protocol/jsonrpc.js'
import { isResponse, parseMessage, type StdioConnection } from './connection.js'

/**
 * The read-ahead's floor: with `maxInFlight: 1` a read-ahead of one
 * message would stall an eliciting tool as soon as its client sent one
 * other request (a ping) before its answer.
 */
const MIN_READ_AHEAD = 8

interface WaitingLine {
  /** Kept as read, not parsed: a parsed message can take several times its line's memory. */
  readonly line: string
  /** The id of a request, for a cancellation to find it. */
  readonly requestId: RequestId | undefined
}

/** True for a message that can only end work in flight: the client's answer, or a cancellation. */
function endsWork (message: JsonObject | undefined): boolean {
  if (message === undefined) return false
  if (message.method === 'notifications/cancelled') return !Object.hasOwn(message, 'id')
  return Object.hasOwn(message, 'id') && isResponse(message)
}

export class Intake {
  readonly #connection: StdioConnection
  readonly #maxInFlight: number
  /** Most messages taken in at once: in flight, and waiting here. */
  readonly #maxTakenIn: number
  /** Lines read while saturated that start new work, oldest first. */
  #waiting: WaitingLine[] = []

  constructor (connection: StdioConnection, maxInFlight: number) {
    this.#connection = connection
    this.#maxInFlight = maxInFlight
    this.#maxTakenIn = maxInFlight + Math.max(maxInFlight, MIN_READ_AHEAD)
    connection.onRelease(() => this.#admitWaiting())
  }

  /** Takes one line read from stdin: to the endpoint now, or in line behind the requests waiting for a slot. */
  take (line: string): void {
    // The common case costs no second parse: a free slot and nobody waiting ahead.
    if (this.#waiting.length === 0 && this.#connection.busy < this.#maxInFlight) {
      this.#connection.receive(line)
      return
    }
    const message = parseMessage(line)
    if (!endsWork(message)) {
      const requestId = typeof message?.method === 'string' && isRequestId(message.id) ? message.id : undefined
      this.#waiting.push({ line, requestId })
      return
    }
    if (message?.method === 'notifications/cancelled') this.#dropCancelled(message.params)
    this.#connection.receive(line, message)
  }

  /** True while no other line may be read: the read-ahead is taken too. */
  get full (): boolean {
    return this.#connection.busy + this.#waiting.length >= this.#maxTakenIn
  }

  /** Resolves once another line may be read. */
  room (): Promise<void> {
    return this.#connection.until(() => !this.full)
  }

  /**
   * Resolves once every line taken has been answered (those waiting go as
   * slots free up), or after `ms`: when stdin ends, `drainMs` covers the
   * waiting lines too, so a handler that never ends cannot keep the
   * connection open past it.
   */
  async drain (ms: number): Promise<void> {
    if (ms === 0) return
    await waitAtMost(this.#connection.until(() => this.#waiting.length === 0 && this.#connection.busy === 0), ms)
  }

  /** Forgets what is waiting: the connection is closing and takes nothing new. */
  discard (): void {
    this.#waiting = []
  }

  #admitWaiting (): void {
    while (this.#waiting.length > 0 && this.#connection.busy < this.#maxInFlight) {
      this.#connection.receive((this.#waiting.shift() as WaitingLine).line)
    }
  }

  /**
   * A request cancelled before it had a slot never starts (and, as for any
   * cancelled request, is not answered). Every waiting request with that id
   * goes: each was read before the cancellation, and a second one under an
   * id in use would otherwise start after it.
   */
  #dropCancelled (params: unknown): void {
    if (!isJsonObject(params) || !isRequestId(params.requestId)) return
    const id = params.requestId
    if (this.#waiting.some(({ requestId }) => requestId === id)) this.#waiting = this.#waiting.filter(({ requestId }) => requestId !== id)
  }
}
