/**
 * Handlers still running, so none can hold a request (or the server's
 * close) forever (issue 11). A pending handler is answered -32603 with its
 * request id, and its `ctx.signal` aborted, when it runs past
 * `handlerTimeoutMs` or when the server closes; whatever it returns later is
 * dropped. Only handlers that answer asynchronously are tracked: one entry
 * and (with a timeout) one unref'd timer each.
 */
import { ErrorCode } from '../protocol/mcp-error.js'
import type { Outcome } from './invoke.js'

export const SHUTTING_DOWN = 'Internal error: the server is shutting down'
export const TIMED_OUT = 'Internal error: the handler timed out'

interface Entry {
  /** Aborts the handler's signal only: it may still answer itself. */
  signal: (message: string) => void
  /** Answers -32603 now (aborting the signal); a later outcome is dropped. */
  stop: (message: string) => void
}

export class InFlight {
  readonly #handlerTimeoutMs: number
  readonly #entries = new Set<Entry>()
  #closed = false

  /** `handlerTimeoutMs: 0` never times a handler out. */
  constructor (handlerTimeoutMs: number) {
    this.#handlerTimeoutMs = handlerTimeoutMs
  }

  /** Handlers pending now. */
  get size (): number {
    return this.#entries.size
  }

  /**
   * The handler's outcome, or the -32603 outcome if it is stopped first;
   * `abort` aborts the handler's signal with the reason. `pending` never
   * rejects (invoke.ts turns exceptions into outcomes).
   */
  track (pending: Promise<Outcome>, abort: (reason: Error) => void): Promise<Outcome> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const entry: Entry = {
        signal: (message) => abort(new Error(message)),
        stop: (message) => {
          if (!this.#entries.delete(entry)) return
          clearTimeout(timer)
          abort(new Error(message))
          resolve({ ok: false, code: ErrorCode.InternalError, message })
        }
      }
      if (this.#closed) {
        this.#entries.add(entry)
        entry.stop(SHUTTING_DOWN)
        return
      }
      this.#entries.add(entry)
      if (this.#handlerTimeoutMs > 0) {
        timer = setTimeout(() => entry.stop(TIMED_OUT), this.#handlerTimeoutMs)
        timer.unref()
      }
      pending.then((outcome) => {
        if (!this.#entries.delete(entry)) return
        clearTimeout(timer)
        resolve(outcome)
      })
    })
  }

  /**
   * Stops every pending handler and any started later: their signals abort
   * at once; a handler that answers within the same turn of the event loop
   * (it honours its signal, or a question it waited on was rejected) keeps
   * its own answer; the rest are answered -32603. Resolves once all are.
   */
  async close (): Promise<void> {
    this.#closed = true
    for (const entry of [...this.#entries]) entry.signal(SHUTTING_DOWN)
    await new Promise((resolve) => setImmediate(resolve))
    for (const entry of [...this.#entries]) entry.stop(SHUTTING_DOWN)
  }
}
