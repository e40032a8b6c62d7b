/**
 * Legacy era: a handler's `ctx.elicit()` and friends become JSON-RPC requests
 * on the SSE response of the client's POST; the client POSTs its answer back
 * and pending-requests.ts matches it to the waiting call.
 */
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { answerProblem, type ClientRequestMethod } from '../protocol/client-request-wire.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { RequestStream } from '../streams/request-stream.js'
import { type ClientRequests, rejected } from './client-requests.js'
import type { PendingRequests } from './pending-requests.js'

/** First protocol version that defines each request (legacy era). */
const INTRODUCED: Readonly<Record<ClientRequestMethod, string>> = {
  'elicitation/create': '2025-06-18',
  'sampling/createMessage': '2024-11-05',
  'roots/list': '2024-11-05'
}

/**
 * Legacy era: sends the request on the response stream of the client's POST
 * and awaits the client's answer. The client's capabilities are unknown in a
 * stateless legacy request, so nothing is checked up front: a client that
 * cannot answer answers with an error, which rejects the call.
 */
export class StreamClientRequests implements ClientRequests {
  readonly requestState = undefined
  readonly #pending: PendingRequests
  readonly #stream: RequestStream
  readonly #version: string
  readonly #raw: ServerResponse
  readonly #caller: string
  #ids: Set<string> | undefined

  /** `caller`: who asks (`callerOf` the request); only their answer settles a question. */
  constructor (pending: PendingRequests, stream: RequestStream, protocolVersion: string, raw: ServerResponse, caller: string) {
    this.#pending = pending
    this.#stream = stream
    this.#version = protocolVersion
    this.#raw = raw
    this.#caller = caller
  }

  send (method: ClientRequestMethod, params: JsonObject): Promise<JsonObject> {
    const since = method === 'elicitation/create' && params.mode === 'url' ? '2025-11-25' : INTRODUCED[method]
    if (this.#version < since) {
      return rejected(new McpError(ErrorCode.InvalidRequest,
        `${method}${since === '2025-11-25' ? ' in URL mode' : ''} needs protocol version ${since} or later; this request uses ${this.#version}`))
    }
    if (this.#raw.destroyed) return rejected(new McpError(ErrorCode.InternalError, `The client went away; ${method} was not sent`))
    const { id, promise } = this.#pending.create(method, this.#caller)
    const sent = this.#stream.sendRequest({ jsonrpc: '2.0', id, method, params: this.#adapt(method, params) })
    if (!sent) {
      this.#pending.cancel(id, `Cannot send ${method}: the request does not accept a text/event-stream response, or the response is over`)
      return promise
    }
    this.#track(id)
    return promise.then(
      (result) => {
        const problem = answerProblem(method, result)
        if (problem !== undefined) throw new McpError(ErrorCode.InvalidParams, `Invalid params: the client's answer to ${method} ${problem}`)
        return result
      }
    )
  }

  /** Version differences the handler need not know about. */
  #adapt (method: ClientRequestMethod, params: JsonObject): JsonObject {
    if (method !== 'elicitation/create') return params
    if (this.#version < '2025-11-25') {
      // `mode` came with 2025-11-25; before it every elicitation is a form.
      if (params.mode !== 'form') return params
      const { mode: _mode, ...rest } = params
      return rest
    }
    if (params.mode === 'url' && typeof params.elicitationId !== 'string') {
      // The legacy URL mode needs an id (its completion notification names it); the modern one has none.
      return { ...params, elicitationId: randomUUID() }
    }
    return params
  }

  /** Requests still waiting when the client's connection closes get no answer: give up on them. */
  #track (id: string): void {
    if (this.#ids === undefined) {
      const ids = new Set<string>()
      this.#ids = ids
      this.#raw.once('close', () => {
        for (const pending of ids) this.#pending.cancel(pending, 'The client closed the request before answering')
      })
    }
    this.#ids.add(id)
  }
}
