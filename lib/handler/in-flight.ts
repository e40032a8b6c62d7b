/**
 * Handlers still running, so none can hold a request (or the server's
 * close) forever (issue 11). A pending handler is answered -32603 with its
 * request id, and its `ctx.signal` aborted, when it runs past
 * `handlerTimeoutMs` or when the server closes; whatever it returns later is
 * dropped. Only handlers that answer asynchronously are tracked: one entry
 * and (with a timeout) one unref'd timer each. A legacy request can also be
 * cancelled by its own caller (`notifications/cancelled` with its id).
 */
import { ErrorCode } from '../protocol/mcp-error.js'
import { isRequestId, type JsonObject, type RequestId } from '../protocol/jsonrpc.js'
import { clip } from '../protocol/describe.js'
import type { Outcome } from './invoke.js'

export const SHUTTING_DOWN = 'Internal error: the server is shutting down'
export const TIMED_OUT = 'Internal error: the handler timed out'
const CANCELLED_REASON = 'the client cancelled the request'

/**
 * The outcome of a request its client cancelled (`notifications/cancelled`):
 * recognised by identity, it gets no JSON-RPC response (the spec's "SHOULD
 * not send a response for the cancelled request").
 */
export const CANCELLED: Outcome = Object.freeze({ ok: false, code: ErrorCode.InternalError, message: 'Internal error: the request was cancelled' })

/** A request that its own caller may cancel by id. */
export interface CancellableBy {
  readonly caller: string
  readonly id: RequestId
}

interface Entry {
  /** Aborts the handler's signal only: it may still answer itself. */
  signal: (message: string) => void
  /** Answers -32603 now (aborting the signal); a later outcome is dropped. */
  stop: (message: string) => void
  /** Aborts the signal and ends with CANCELLED; a later outcome is dropped. */
  cancel: () => void
  /** Key in the by-request index, when cancellable. */
  key?: string
}

/** One key per caller and id: `1` and `"1"` are different ids. */
function requestKey (caller: string, id: RequestId): string {
  return JSON.stringify([caller, id])
}

export class InFlight {
  readonly #handlerTimeoutMs: number
  readonly #entries = new Set<Entry>()
  /** Cancellable entries by caller and request id (one client may reuse an id across connections). */
  readonly #byRequest = new Map<string, Set<Entry>>()
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
  track (pending: Promise<Outcome>, abort: (reason: Error) => void, cancellableBy?: CancellableBy, dispatchedAt = performance.now()): Promise<Outcome> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined
      const finish = (outcome: Outcome, reason: string | undefined): void => {
        if (!this.#entries.delete(entry)) return
        this.#unindex(entry)
        clearTimeout(timer)
        if (reason !== undefined) abort(new Error(reason))
        resolve(outcome)
      }
      const entry: Entry = {
        signal: (message) => abort(new Error(message)),
        stop: (message) => finish({ ok: false, code: ErrorCode.InternalError, message }, message),
        cancel: () => finish(CANCELLED, CANCELLED_REASON)
      }
      this.#entries.add(entry)
      if (this.#closed) {
        entry.stop(SHUTTING_DOWN)
        return
      }
      if (cancellableBy !== undefined) this.#index(entry, requestKey(cancellableBy.caller, cancellableBy.id))
      if (this.#handlerTimeoutMs > 0) {
        // The bound runs from the request's dispatch: hooks before the handler used some of it.
        timer = setTimeout(() => entry.stop(TIMED_OUT), Math.max(0, dispatchedAt + this.#handlerTimeoutMs - performance.now()))
        timer.unref()
      }
      pending.then((outcome) => finish(outcome, undefined))
    })
  }

  /**
   * Cancels `caller`'s pending requests with `id` (their signals abort,
   * they get no response); another caller's requests and unknown ids are
   * left alone. Returns how many were cancelled.
   */
  cancel (caller: string, id: RequestId): number {
    const entries = this.#byRequest.get(requestKey(caller, id))
    if (entries === undefined) return 0
    const cancelled = [...entries]
    for (const entry of cancelled) entry.cancel()
    return cancelled.length
  }

  #index (entry: Entry, key: string): void {
    entry.key = key
    let entries = this.#byRequest.get(key)
    if (entries === undefined) this.#byRequest.set(key, entries = new Set())
    entries.add(entry)
  }

  #unindex (entry: Entry): void {
    if (entry.key === undefined) return
    const entries = this.#byRequest.get(entry.key)
    entries?.delete(entry)
    if (entries?.size === 0) this.#byRequest.delete(entry.key)
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

/**
 * A legacy client's `notifications/cancelled`: cancels that caller's
 * pending request with `params.requestId`, if there is one (a malformed
 * notification, like one for an unknown or finished request, is ignored).
 */
export function cancelNotified (inFlight: InFlight, caller: string, params: JsonObject, log: { debug: (obj: object, msg: string) => void }): void {
  const id = params.requestId
  if (!isRequestId(id)) return
  const cancelled = inFlight.cancel(caller, id)
  if (cancelled > 0) log.debug({ requestId: id, reason: typeof params.reason === 'string' ? clip(params.reason) : undefined }, 'MCP request cancelled by the client')
}
