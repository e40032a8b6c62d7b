/**
 * Legacy-era server-to-client requests awaiting the client's answer. The
 * request goes out on the SSE response of the client's POST; the client POSTs
 * its JSON-RPC response back as a separate HTTP request, which the endpoint
 * hands to `settle`. The requests wait in this process's memory; behind a
 * load balancer the endpoint's answer router (lib/parts/answer-router.ts)
 * carries an answer that lands on another instance back here. Ids come from
 * that router (random UUIDs by default): they cannot be guessed and never
 * collide across processes. Each request belongs to the caller it was asked
 * of (`callerOf`): an answer POSTed by anyone else settles nothing.
 */
import { randomUUID } from 'node:crypto'
import { clip } from '../protocol/describe.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { McpError } from '../protocol/mcp-error.js'
import type { JsonObject } from '../protocol/jsonrpc.js'

/** JSON-RPC code for "no answer in time" (the code the official SDKs use). */
export const REQUEST_TIMEOUT_CODE = -32001

interface Entry {
  method: string
  caller: string
  resolve: (result: JsonObject) => void
  reject: (err: Error) => void
  timer: NodeJS.Timeout
}

export class PendingRequests {
  readonly #clientRequestTimeoutMs: number
  readonly #newId: () => string
  readonly #entries = new Map<string, Entry>()
  #closed = false

  /** `newId` mints request ids (the answer router's, so answers can find their way back). */
  constructor (clientRequestTimeoutMs: number, newId: () => string = randomUUID) {
    this.#clientRequestTimeoutMs = clientRequestTimeoutMs
    this.#newId = newId
  }

  /** How many requests await an answer. */
  get size (): number {
    return this.#entries.size
  }

  /**
   * Registers a request to `method`; the promise settles with the client's
   * result, its error (as McpError), a timeout, `cancel` or `close`. It never
   * counts as unhandled: a handler that does not await it does not crash Node.
   */
  create (method: string, caller: string): { id: string, promise: Promise<JsonObject> } {
    const id = this.#newId()
    const promise = new Promise<JsonObject>((resolve, reject) => {
      if (this.#closed) {
        reject(new McpError(REQUEST_TIMEOUT_CODE, `The server is closing; ${method} was not sent`))
        return
      }
      const timer = setTimeout(() => {
        this.#finish(id)?.reject(new McpError(REQUEST_TIMEOUT_CODE,
          `Request timed out: the client did not answer ${method} within ${this.#clientRequestTimeoutMs} ms`))
      }, this.#clientRequestTimeoutMs)
      timer.unref()
      this.#entries.set(id, { method, caller, resolve, reject, timer })
    })
    promise.catch(() => {})
    return { id, promise }
  }

  /**
   * Settles the request a POSTed JSON-RPC response answers, when `caller`
   * (who POSTed it) is the caller it was asked of. Returns false for an
   * unknown id (already answered, timed out, another process's) and for
   * another caller's request, alike.
   */
  settle (message: unknown, caller: string): boolean {
    if (!isJsonObject(message) || typeof message.id !== 'string') return false
    const entry = this.#entries.get(message.id)
    if (entry === undefined || entry.caller !== caller) return false
    this.#finish(message.id)
    if (isJsonObject(message.error)) {
      const { code, message: text, data } = message.error
      entry.reject(new McpError(
        typeof code === 'number' && Number.isSafeInteger(code) ? code : -32603,
        `The client answered ${entry.method} with an error: ${typeof text === 'string' ? clip(text) : 'no message'}`,
        data
      ))
    } else if (isJsonObject(message.result)) {
      entry.resolve(message.result)
    } else {
      entry.reject(new McpError(-32603, `The client answered ${entry.method} without a result object`))
    }
    return true
  }

  /** Gives up on one request (its client went away); no-op when already settled. */
  cancel (id: string, reason: string): void {
    this.#finish(id)?.reject(new McpError(-32603, reason))
  }

  /** Rejects everything still waiting and refuses new requests: the server is stopping. */
  close (): void {
    this.#closed = true
    for (const id of [...this.#entries.keys()]) {
      const entry = this.#finish(id)
      if (entry !== undefined) entry.reject(new McpError(REQUEST_TIMEOUT_CODE, `The server is closing; ${entry.method} got no answer`))
    }
  }

  #finish (id: string): Entry | undefined {
    const entry = this.#entries.get(id)
    if (entry === undefined) return undefined
    clearTimeout(entry.timer)
    this.#entries.delete(id)
    return entry
  }
}
