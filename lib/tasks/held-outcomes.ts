/**
 * Outcomes of tasks whose work ended while the task store could not take
 * them (a shared store cut off from this instance): held here and stored
 * once the store answers again, so a finished task never answers `working`
 * until its TTL because of an outage.
 *
 * Held as JSON text (nothing the handler built stays pinned), and bounded:
 * at most `maxCount` outcomes and `maxBytes` bytes. A result that does not
 * fit the bytes is replaced by a short failure saying why (bounded by the
 * count alone), so the task still ends; only with `maxCount` outcomes held
 * already is an outcome dropped (and logged). An
 * outcome is tried again every RETRY_MS until stored or until its task's
 * TTL has passed (the store has forgotten the task by then).
 */
import type { FastifyBaseLogger } from 'fastify'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { type Change, encodeObject, NOT_JSON_REASON, type TaskStore, unkeptResult } from '../parts/task-store.js'

/** Between attempts to store what is held. */
export const RETRY_MS = 500

/** What the work ended with. */
export type TaskOutcome =
  | { readonly kind: 'complete', readonly result: JsonObject }
  | { readonly kind: 'fail', readonly error: JsonObject, readonly statusMessage: string }

interface Held {
  readonly taskId: string
  readonly kind: 'complete' | 'fail'
  /** The result or error, as JSON text. */
  readonly text: string
  readonly statusMessage: string
  readonly expiresAt: number
  /** Bytes counted against `maxBytes` (none for a short failure put in a result's place). */
  readonly bytes: number
}

export const UNREACHABLE_REASON = 'the task store could not be reached when the task ended, and the result was too large to hold until it could'

/** Stores an outcome in `store`. */
export function storeOutcome (store: TaskStore, taskId: string, outcome: TaskOutcome): Promise<Change | undefined> {
  return outcome.kind === 'complete' ? store.complete(taskId, outcome.result) : store.fail(taskId, outcome.error, outcome.statusMessage)
}

export class HeldOutcomes {
  readonly #store: TaskStore
  readonly #log: FastifyBaseLogger
  readonly #maxCount: number
  readonly #maxBytes: number
  readonly #onStored: (change: Change) => void
  readonly #held = new Map<string, Held>()
  #bytes = 0
  #timer: NodeJS.Timeout | undefined
  #trying = false
  #closed = false

  constructor (options: { store: TaskStore, log: FastifyBaseLogger, maxCount: number, maxBytes: number, onStored: (change: Change) => void }) {
    this.#store = options.store
    this.#log = options.log
    this.#maxCount = options.maxCount
    this.#maxBytes = options.maxBytes
    this.#onStored = options.onStored
  }

  /** Outcomes held now. */
  get size (): number {
    return this.#held.size
  }

  /** Bytes of JSON held now. */
  get bytes (): number {
    return this.#bytes
  }

  /** Holds `outcome` of task `taskId` (expiring at `expiresAt`, ms) until the store takes it. */
  hold (taskId: string, outcome: TaskOutcome, expiresAt: number): void {
    if (this.#closed || this.#held.has(taskId)) return
    let held = toHeld(taskId, outcome, expiresAt)
    if (this.#bytes + held.bytes > this.#maxBytes) held = failure(taskId, UNREACHABLE_REASON, expiresAt)
    if (this.#held.size >= this.#maxCount) {
      this.#log.error({ taskId }, 'MCP task outcome dropped: the task store is unreachable and no more outcomes can be held')
      return
    }
    this.#held.set(taskId, held)
    this.#bytes += held.bytes
    this.#timer ??= setInterval(() => { void this.retry() }, RETRY_MS)
    this.#timer.unref()
  }

  /** Tries to store every held outcome once (the timer calls it; a test or `close` may too). */
  async retry (): Promise<void> {
    if (this.#trying) return
    this.#trying = true
    try {
      for (const held of [...this.#held.values()]) {
        if (Date.now() >= held.expiresAt) {
          this.#forget(held)
          this.#log.warn({ taskId: held.taskId }, 'MCP task outcome dropped: its task expired before the task store could be reached')
          continue
        }
        let change: Change | undefined
        try {
          change = await storeOutcome(this.#store, held.taskId, fromHeld(held))
        } catch {
          // Still unreachable: the rest would fail the same way; try again on the next tick.
          return
        }
        this.#forget(held)
        if (change?.changed === true) this.#onStored(change)
      }
    } finally {
      this.#trying = false
    }
  }

  /** One last attempt (the endpoint is closing); whatever is still held then is dropped. */
  async close (): Promise<void> {
    if (this.#closed) return
    await this.retry()
    this.#closed = true
    if (this.#held.size > 0) this.#log.error({ tasks: this.#held.size }, 'MCP task outcomes dropped at close: the task store could not be reached')
    for (const held of [...this.#held.values()]) this.#forget(held)
  }

  #forget (held: Held): void {
    if (this.#held.get(held.taskId) !== held) return
    this.#held.delete(held.taskId)
    this.#bytes -= held.bytes
    if (this.#held.size === 0 && this.#timer !== undefined) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }
}

function toHeld (taskId: string, outcome: TaskOutcome, expiresAt: number): Held {
  const text = encodeObject(outcome.kind === 'complete' ? outcome.result : outcome.error)
  if (text === undefined) return failure(taskId, NOT_JSON_REASON, expiresAt)
  return { taskId, kind: outcome.kind, text, statusMessage: outcome.kind === 'fail' ? outcome.statusMessage : '', expiresAt, bytes: text.length }
}

function failure (taskId: string, why: string, expiresAt: number): Held {
  const { error, statusMessage } = unkeptResult(why)
  return { taskId, kind: 'fail', text: JSON.stringify(error), statusMessage, expiresAt, bytes: 0 }
}

function fromHeld (held: Held): TaskOutcome {
  const value = JSON.parse(held.text) as JsonObject
  return held.kind === 'complete' ? { kind: 'complete', result: value } : { kind: 'fail', error: value, statusMessage: held.statusMessage }
}
