/**
 * Asking the client for input from a handler: `ctx.elicit(params)`,
 * `ctx.createMessage(params)` (sampling) and `ctx.listRoots()`, each
 * resolving to the client's result, the same code in both eras:
 *
 * - modern (2026-07-28): multi round-trip requests, see input-replay.ts. A
 *   missing answer ends this attempt with an `input_required` result; the
 *   client retries with the answers and the handler runs again.
 * - legacy: a JSON-RPC request on the SSE response of the client's POST; the
 *   client POSTs its response back (pending-requests.ts).
 *
 * Only handlers of `tools/call`, `prompts/get` and `resources/read` may ask
 * (the spec allows `input_required` results on those alone).
 */
import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { isJsonObject } from './jsonrpc.js'
import { ErrorCode, McpError } from './mcp-error.js'
import type { PendingRequests } from './pending-requests.js'
import type { RequestStream } from './request-stream.js'
import type { JsonObject } from './server-module.js'

export type ClientRequestMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list'

/** Client requests whose handlers may ask the client for input. */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read'])

export interface ClientRequestOptions {
  /**
   * Modern era: the key of this request in `inputRequests` and of its answer
   * in `inputResponses`. Default: by call order per kind (`elicitation-1`,
   * `sampling-1`, `roots-1`, ...), which is stable as long as the handler asks
   * the same questions in the same order on every attempt. Ignored in the
   * legacy era.
   */
  key?: string
}

/** `elicitation/create` params: a form (default) or, with `mode: 'url'`, a URL to open. */
export type ElicitParams =
  | { mode?: 'form', message: string, requestedSchema: JsonObject, [key: string]: unknown }
  | { mode: 'url', message: string, url: string, elicitationId?: string, [key: string]: unknown }

export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, string | number | boolean | string[]>
  [key: string]: unknown
}

export interface SamplingMessage {
  role: 'user' | 'assistant'
  content: JsonObject | JsonObject[]
  [key: string]: unknown
}

export interface CreateMessageParams {
  messages: SamplingMessage[]
  maxTokens: number
  systemPrompt?: string
  [key: string]: unknown
}

export interface CreateMessageResult {
  role: 'user' | 'assistant'
  content: JsonObject | JsonObject[]
  model: string
  stopReason?: string
  [key: string]: unknown
}

export interface Root {
  uri: string
  name?: string
  [key: string]: unknown
}

export interface ListRootsResult {
  roots: Root[]
  [key: string]: unknown
}

/** One entry of `inputRequests`. */
export interface InputRequest {
  method: ClientRequestMethod
  params?: JsonObject
}

/** A hand-built `input_required` result (2026-07-28). */
export interface InputRequiredResult {
  resultType: 'input_required'
  inputRequests?: Record<string, InputRequest>
  requestState?: string
  [key: string]: unknown
}

/** How a request context reaches the client; one implementation per era. */
export interface ClientRequests {
  send (method: ClientRequestMethod, params: JsonObject, options?: ClientRequestOptions): Promise<JsonObject>
  /** Modern era: the `requestState` a hand-built `input_required` result set, verified, on the retry. */
  readonly requestState: string | undefined
}

/**
 * Thrown by `ctx.elicit()` and friends in the modern era when the answer is
 * not in the request yet; the endpoint answers `input_required`. Let it
 * propagate (a catch-all should rethrow it): a handler that swallows it
 * returns its own result instead.
 */
export class InputRequiredSignal extends Error {
  constructor () {
    super('input required: the endpoint answers with an input_required result and the client retries')
    this.name = 'InputRequiredSignal'
  }
}

/**
 * Builds an `input_required` result by hand (modern era only). The endpoint
 * signs `requestState` (the handler's own string comes back verified as
 * `ctx.requestState` on the retry) and checks that the client declared the
 * capabilities the requests need; the answers are in `params.inputResponses`.
 */
export function inputRequired (init: { inputRequests?: Record<string, InputRequest>, requestState?: string } = {}): InputRequiredResult {
  const result: InputRequiredResult = { resultType: 'input_required' }
  if (init.inputRequests !== undefined) result.inputRequests = init.inputRequests
  if (init.requestState !== undefined) result.requestState = init.requestState
  return result
}

/** A rejected promise that never counts as unhandled (the handler may not await every request). */
export function rejected (err: unknown): Promise<never> {
  const promise = Promise.reject(err)
  promise.catch(() => {})
  return promise
}

/** The `requiredCapabilities` a request needs and the client lacks, or undefined. */
export function missingCapability (method: string, params: JsonObject, capabilities: JsonObject): JsonObject | undefined {
  switch (method) {
    case 'elicitation/create': {
      const declared = capabilities.elicitation
      const url = params.mode === 'url'
      if (!isJsonObject(declared)) return { elicitation: url ? { url: {} } : {} }
      if (url) return isJsonObject(declared.url) ? undefined : { elicitation: { url: {} } }
      // `elicitation: {}` (no modes named) means form support.
      return isJsonObject(declared.form) || declared.url === undefined ? undefined : { elicitation: { form: {} } }
    }
    case 'sampling/createMessage': {
      const declared = capabilities.sampling
      if (!isJsonObject(declared)) return { sampling: {} }
      if ((params.tools !== undefined || params.toolChoice !== undefined) && !isJsonObject(declared.tools)) return { sampling: { tools: {} } }
      const context = params.includeContext
      if ((context === 'thisServer' || context === 'allServers') && !isJsonObject(declared.context)) return { sampling: { context: {} } }
      return undefined
    }
    case 'roots/list':
      return isJsonObject(capabilities.roots) ? undefined : { roots: {} }
  }
  return {}
}

/** Throws -32021 when the client did not declare what `method` with `params` needs. */
export function requireCapabilityFor (method: string, params: JsonObject, capabilities: JsonObject): void {
  const required = missingCapability(method, params, capabilities)
  if (required === undefined) return
  throw new McpError(ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability for ${method}: ${JSON.stringify(required)}`,
    { requiredCapabilities: required })
}

const ELICIT_ACTIONS: ReadonlySet<unknown> = new Set(['accept', 'decline', 'cancel'])
const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant'])

/** What is wrong with a client's answer to `method`, or undefined when it has the result's shape. */
export function answerProblem (method: string, answer: JsonObject): string | undefined {
  switch (method) {
    case 'elicitation/create':
      if (!ELICIT_ACTIONS.has(answer.action)) return 'is not an ElicitResult (action must be accept, decline or cancel)'
      if (answer.content !== undefined && !isJsonObject(answer.content)) return 'is not an ElicitResult (content must be an object)'
      return undefined
    case 'sampling/createMessage':
      if (!ROLES.has(answer.role) || typeof answer.model !== 'string' || !(isJsonObject(answer.content) || Array.isArray(answer.content))) {
        return 'is not a CreateMessageResult (role, content and model are required)'
      }
      return undefined
    case 'roots/list':
      if (!Array.isArray(answer.roots) || !answer.roots.every((r) => isJsonObject(r) && typeof r.uri === 'string')) {
        return 'is not a ListRootsResult (roots must be an array of { uri })'
      }
      return undefined
  }
  return 'answers an unknown request'
}

/** The error a handler gets when it asks the client from a method that cannot. */
export function unavailable (method: string, era: string): Promise<never> {
  return rejected(new Error(`ctx.elicit/createMessage/listRoots are only available to tools/call, prompts/get and resources/read handlers (called while serving ${method}, ${era} era)`))
}

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
  #ids: Set<string> | undefined

  constructor (pending: PendingRequests, stream: RequestStream, protocolVersion: string, raw: ServerResponse) {
    this.#pending = pending
    this.#stream = stream
    this.#version = protocolVersion
    this.#raw = raw
  }

  send (method: ClientRequestMethod, params: JsonObject): Promise<JsonObject> {
    const since = method === 'elicitation/create' && params.mode === 'url' ? '2025-11-25' : INTRODUCED[method]
    if (this.#version < since) {
      return rejected(new McpError(ErrorCode.InvalidRequest,
        `${method}${since === '2025-11-25' ? ' in URL mode' : ''} needs protocol version ${since} or later; this request uses ${this.#version}`))
    }
    if (this.#raw.destroyed) return rejected(new McpError(ErrorCode.InternalError, `The client went away; ${method} was not sent`))
    const { id, promise } = this.#pending.create(method)
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
