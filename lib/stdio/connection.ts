/**
 * One stdio connection: every line read goes to the endpoint as its own
 * call (lib/stdio/endpoint-call.ts) and every message of the answer is
 * written back, so requests run concurrently and a client's answer to a
 * question the server asked (legacy elicitation, sampling, roots) can
 * arrive while the tool that asked waits.
 *
 * The era is decided per connection, as the stdio transport says: the first
 * `initialize` answered makes it legacy, the first modern request answered
 * (its `_meta` names a protocol version; `server/discover` is the usual
 * probe) makes it modern; a request of the other era is then refused.
 * A legacy connection carries the `Mcp-Session-Id` its `initialize` was
 * given (with the `sessions` option) on every later message, and hears list
 * changes and resource updates on the endpoint's standalone stream, opened
 * as a Streamable HTTP client opens it (lib/stdio/legacy-stream.ts).
 *
 * Cancellation: `notifications/cancelled` closes the call of that request
 * id (its handler's `ctx.signal` aborts; a legacy request is also cancelled
 * by the endpoint itself) and nothing more is written for it.
 */
import type { FastifyBaseLogger } from 'fastify'
import { waitAtMost } from '../common/timers.js'
import { deriveParamHeaders, type ParamHeader } from '../endpoint/param-headers.js'
import { isJsonObject, isRequestId, type JsonObject, type RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import type { Era } from '../protocol/methods.js'
import { EndpointCall, type EndpointTarget } from './endpoint-call.js'
import { LegacyStream } from './legacy-stream.js'
import { modernHeaders, modernVersionOf, paramHeaders } from './message-headers.js'
import type { MessageWriter } from './message-writer.js'

export interface ConnectionSettings {
  readonly target: EndpointTarget
  /** What every call carries (content type, accept, the user's `headers`). */
  readonly headers: Readonly<Record<string, string>>
  readonly writer: MessageWriter
  readonly log: FastifyBaseLogger
}

interface InFlightRequest {
  call: EndpointCall
  /** Whether it still counts against `maxInFlight`: until answered; a `subscriptions/listen` request until its stream opened. */
  counted: boolean
}

/** Bounds on the annotation lookup a modern `tools/call` may need (`Mcp-Param-*`). */
const MAX_TOOL_PAGES = 100
const HEADER_MISMATCH = -32020
/** How long ending the session a client's second `initialize` replaced (its DELETE) may take. */
const SESSION_END_MS = 1_000
/** Distinct modern header sets kept (one per method and tool or prompt name): past it the set starts again. */
const MAX_HEADER_SETS = 256

function keyOf (id: RequestId): string {
  return typeof id === 'number' ? `n${id}` : `s${id}`
}

function errorLine (id: RequestId | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })
}

/** `headers` with a tool call's `Mcp-Param-*` headers added (a new object: the shared sets stay as they are). */
function withParams (headers: Readonly<Record<string, string>>, params: Record<string, string>): Readonly<Record<string, string>> {
  return Object.keys(params).length === 0 ? headers : { ...headers, ...params }
}

/** How the endpoint starts every notification it writes. */
const NOTIFICATION_PREFIX = '{"jsonrpc":"2.0","method":'

/** `line` parsed when it is a JSON object; undefined otherwise (the endpoint answers it -32700 or -32600). */
export function parseMessage (line: string): JsonObject | undefined {
  let message: unknown
  try {
    message = JSON.parse(line)
  } catch {
    return undefined
  }
  return isJsonObject(message) ? message : undefined
}

/** An answer (a result or an error, no method): the endpoint's to this request, or the client's to the server's question. */
export function isResponse (message: JsonObject): boolean {
  return message.method === undefined && (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error'))
}

/** `json` parsed when it is the response to `id` (a result or an error). */
function responseTo (json: string, id: RequestId): JsonObject | undefined {
  let message: unknown
  try {
    message = JSON.parse(json)
  } catch {
    return undefined
  }
  return isJsonObject(message) && message.id === id && (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error')) ? message : undefined
}

export class StdioConnection {
  readonly #settings: ConnectionSettings
  #era: Era | undefined
  /** The version `initialize` agreed on: every later legacy message carries it, as a Streamable HTTP client's would. */
  #legacyVersion: string | undefined
  /** The `Mcp-Session-Id` the endpoint issued at `initialize` (the `sessions` option): every later legacy message carries it. */
  #legacySession: string | undefined
  readonly #requests = new Map<string, InFlightRequest>()
  readonly #running = new Set<Promise<void>>()
  /**
   * Messages in flight (requests, notifications, answers to the server's
   * questions, refusals being written); a `subscriptions/listen` request
   * until its stream opened (its first message written), the open stream not.
   */
  #busy = 0
  #waiters: Array<() => void> = []
  #onRelease: (() => void) | undefined
  #annotations: Promise<ReadonlyMap<string, readonly ParamHeader[]>> | undefined
  readonly #stream: LegacyStream
  /** Modern headers by version, method and name (see `#headersFor`). */
  readonly #modernHeaders = new Map<string, Readonly<Record<string, string>>>()
  #legacyHeaders: Readonly<Record<string, string>> | undefined

  constructor (settings: ConnectionSettings) {
    this.#settings = settings
    this.#stream = new LegacyStream(settings.target, settings.writer, settings.log)
  }

  /** The era this connection speaks; undefined until its first `initialize` or modern request is answered. */
  get era (): Era | undefined {
    return this.#era
  }

  /** Client messages in flight (open `subscriptions/listen` streams not counted): new work waits at `maxInFlight` (lib/stdio/intake.ts). */
  get busy (): number {
    return this.#busy
  }

  /** Resolves once `condition` holds, checked now and whenever a message in flight ends. */
  until (condition: () => boolean): Promise<void> {
    if (condition()) return Promise.resolve()
    return new Promise((resolve) => {
      const check = (): void => {
        if (condition()) resolve()
        else this.#waiters.push(check)
      }
      this.#waiters.push(check)
    })
  }

  /** `listener` runs whenever a message in flight ends, before anything waiting in `until` is checked. */
  onRelease (listener: () => void): void {
    this.#onRelease = listener
  }

  /** Sends one line to the endpoint; its answer is written when it comes. */
  receive (line: string, message: JsonObject | undefined = parseMessage(line)): void {
    this.#track(this.#handle(line, message))
  }

  /** Resolves once every call has ended (the app closing ends what is left). */
  async settled (): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running])
  }

  /**
   * Ends the legacy session the endpoint issued at `initialize`, as a
   * Streamable HTTP client does with DELETE when it goes: its streams end
   * and its subscriptions go at once, instead of when the session idles out.
   * Given `ms` at most; nothing to do for a modern connection or without
   * the `sessions` option.
   */
  async endSession (ms: number): Promise<void> {
    const session = this.#legacySession
    if (session === undefined) return
    this.#legacySession = undefined
    await this.#deleteSession(session, ms)
  }

  /** Ends `session` at the endpoint (DELETE), waiting `ms` at most. */
  async #deleteSession (session: string, ms: number): Promise<void> {
    const { 'content-type': _none, 'mcp-session-id': _current, ...headers } = this.#headersFor(undefined)
    const call = new EndpointCall()
    const ending = (async () => {
      for await (const json of call.send(this.#settings.target, 'DELETE', { ...headers, 'mcp-session-id': session })) {
        this.#settings.log.warn({ status: call.status, body: json.slice(0, 200) }, 'MCP stdio: the endpoint did not end the legacy session')
      }
    })()
    await waitAtMost(ending, ms)
    call.cancel()
    await ending
  }

  /** Closes every call still open, as a client disconnecting would. */
  cancelAll (): void {
    for (const request of this.#requests.values()) request.call.cancel()
    this.#stream.stop()
  }

  #track (work: Promise<void>): void {
    const tracked = work.catch((err: unknown) => {
      this.#settings.log.error({ err }, 'MCP stdio message failed')
    }).finally(() => this.#running.delete(tracked))
    this.#running.add(tracked)
  }

  /**
   * The headers a message is sent with. They are the same for every message
   * of one kind (version, method, name), so each set is built once and shared:
   * each request copies them (lib/stdio/line-request.ts), nothing writes to them.
   */
  #headersFor (message: JsonObject | undefined): Readonly<Record<string, string>> {
    const version = message === undefined ? undefined : modernVersionOf(message)
    if (version !== undefined) {
      const extra = modernHeaders(message as JsonObject, version)
      // Quoted: the version and method are verbatim, so a separator alone could join two sets into one key.
      const key = JSON.stringify([extra['mcp-protocol-version'], extra['mcp-method'] ?? '', extra['mcp-name'] ?? ''])
      let headers = this.#modernHeaders.get(key)
      if (headers === undefined) {
        if (this.#modernHeaders.size >= MAX_HEADER_SETS) this.#modernHeaders.clear()
        headers = Object.freeze({ ...this.#settings.headers, ...extra })
        this.#modernHeaders.set(key, headers)
      }
      return headers
    }
    if (this.#legacyVersion !== undefined) {
      this.#legacyHeaders ??= Object.freeze({
        ...this.#settings.headers,
        'mcp-protocol-version': this.#legacyVersion,
        ...(this.#legacySession === undefined ? {} : { 'mcp-session-id': this.#legacySession })
      })
      return this.#legacyHeaders
    }
    return this.#settings.headers
  }

  async #handle (line: string, message: JsonObject | undefined): Promise<void> {
    const method = message?.method
    const id = message?.id
    if (message === undefined || typeof method !== 'string' || !isRequestId(id)) {
      // Not a request (a notification, an answer to the server's question, or not JSON-RPC at all): the endpoint judges it.
      if (method === 'notifications/cancelled') this.#cancel(message?.params)
      // Counted like a request: a flood of them behind a slow hook (a token check) would otherwise pile up unread-paced.
      this.#busy++
      try {
        await this.#pass(line, this.#headersFor(message))
      } finally {
        this.#release()
      }
      return
    }
    const modern = modernVersionOf(message) !== undefined
    const refusal = this.#eraRefusal(method, modern)
    if (refusal !== undefined) return this.#refuse(errorLine(id, ErrorCode.InvalidRequest, refusal))
    const key = keyOf(id)
    if (this.#requests.has(key)) return this.#refuse(errorLine(id, ErrorCode.InvalidRequest, `Invalid Request: id ${JSON.stringify(id)} is already used by a request in flight`))
    const request: InFlightRequest = { call: new EndpointCall(), counted: true }
    this.#requests.set(key, request)
    this.#busy++
    try {
      await this.#request(line, message, id, method, modern, request)
    } finally {
      this.#requests.delete(key)
      this.#uncount(request)
    }
  }

  /**
   * Writes the refusal of a request the endpoint never sees, counted while
   * the output makes it wait, as an answer is: a host that reads nothing
   * would otherwise have every refused line's answer pile up in the output.
   */
  async #refuse (answer: string): Promise<void> {
    this.#busy++
    try {
      await this.#settings.writer.send(answer)
    } finally {
      this.#release()
    }
  }

  /** `request` stops counting against `maxInFlight` (answered, or its listen stream opened), once. */
  #uncount (request: InFlightRequest): void {
    if (!request.counted) return
    request.counted = false
    this.#release()
  }

  #release (): void {
    this.#busy--
    this.#onRelease?.()
    const waiters = this.#waiters
    this.#waiters = []
    for (const waiter of waiters) waiter()
  }

  /** Why a request of the other era is refused here, once the connection's era is decided. */
  #eraRefusal (method: string, modern: boolean): string | undefined {
    if (this.#era === 'legacy' && modern) {
      return `Invalid Request: this stdio connection speaks the legacy era (initialized with ${String(this.#legacyVersion)}); "${method}" carries a modern protocol version in _meta`
    }
    if (this.#era === 'modern' && !modern) {
      return `Invalid Request: this stdio connection speaks the modern era; "${method}" must carry _meta["io.modelcontextprotocol/protocolVersion"] like every request on it`
    }
    return undefined
  }

  async #request (line: string, message: JsonObject, id: RequestId, method: string, modern: boolean, request: InFlightRequest): Promise<void> {
    const { writer } = this.#settings
    const toolCall = modern && method === 'tools/call'
    // Counted until its stream opened (its acknowledgement written): a flood of them waits like any request, an open stream does not.
    const listen = method === 'subscriptions/listen'
    let headers = this.#headersFor(message)
    if (toolCall) headers = withParams(headers, await this.#paramHeaders(message, false))
    let answered = false
    // How the endpoint starts this request's result: the common answer is written without being parsed again.
    const resultPrefix = method === 'initialize' ? undefined : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`
    for (let attempt = 0; ; attempt++) {
      let retry = false
      for await (const json of request.call.send(this.#settings.target, 'POST', headers, line)) {
        // Notifications (the bulk of a stream) go out as the endpoint wrote them; anything else is looked at.
        if (json.startsWith(NOTIFICATION_PREFIX)) {
          await writer.send(json)
          if (listen) this.#uncount(request)
          continue
        }
        if (resultPrefix !== undefined && json.startsWith(resultPrefix)) {
          answered = true
          if (modern) this.#era ??= 'modern'
          await writer.send(json)
          continue
        }
        const answer = this.#jsonRpc(json)
        if (answer === undefined) continue
        if (!isResponse(answer)) {
          await writer.send(json)
          continue
        }
        // Refused before the endpoint read the body (authorization, size): the answer is this request's all the same.
        const idless = !Object.hasOwn(answer, 'id')
        if (idless) answer.id = id
        if (answer.id !== id) continue
        if (toolCall && attempt === 0 && isJsonObject(answer.error) && answer.error.code === HEADER_MISMATCH) {
          // The annotations were never read, or the tool list changed since: read them again, once.
          headers = withParams(this.#headersFor(message), await this.#paramHeaders(message, true))
          retry = true
          break
        }
        answered = true
        const previous = this.#legacySession
        const initialized = isJsonObject(answer.result) && this.#decideEra(answer.result, method, modern, request.call.headers['mcp-session-id'])
        await writer.send(idless ? JSON.stringify(answer) : json)
        if (initialized) {
          // A client that initializes again gets a new session: the old one can no longer be named by it, so it
          // ends (its subscriptions and stream with it), and the stream is opened again for the new one, which
          // its later subscriptions belong to.
          const renewed = previous !== undefined && previous !== this.#legacySession
          if (renewed) this.#track(this.#deleteSession(previous, SESSION_END_MS))
          const streamHeaders = this.#headersFor(undefined)
          const stream = renewed ? this.#stream.restart(streamHeaders) : this.#stream.start(streamHeaders)
          if (stream !== undefined) this.#track(stream)
        }
      }
      if (!retry || request.call.cancelled) break
      request.call = new EndpointCall()
    }
    if (!answered && !request.call.cancelled && !writer.gone) {
      await writer.send(errorLine(id, ErrorCode.InternalError, 'Internal error: the endpoint ended the request without an answer'))
    }
  }

  /** A JSON-RPC 2.0 message of the endpoint's answer; anything else (a plain HTTP error body) is logged and dropped. */
  #jsonRpc (json: string): JsonObject | undefined {
    let message: unknown
    try {
      message = JSON.parse(json)
    } catch {
      message = undefined
    }
    if (isJsonObject(message) && message.jsonrpc === '2.0') return message
    this.#settings.log.warn({ body: json.slice(0, 200) }, 'MCP stdio: the endpoint answered with something other than JSON-RPC; not written to stdout')
    return undefined
  }

  /** Settles the era on the first answer that decides it; true when this answer was a legacy `initialize`'s. */
  #decideEra (result: JsonObject, method: string, modern: boolean, session: unknown): boolean {
    if (modern) {
      this.#era ??= 'modern'
      return false
    }
    if (method !== 'initialize' || this.#era === 'modern' || typeof result.protocolVersion !== 'string') return false
    this.#era = 'legacy'
    this.#legacyVersion = result.protocolVersion
    this.#legacySession = typeof session === 'string' ? session : undefined
    this.#legacyHeaders = undefined
    return true
  }

  /** A notification or a client's answer: the endpoint answers 202 without a body, or an error. */
  async #pass (line: string, headers: Record<string, string>): Promise<void> {
    for await (const json of new EndpointCall().send(this.#settings.target, 'POST', headers, line)) {
      if (json.startsWith(NOTIFICATION_PREFIX) || this.#jsonRpc(json) !== undefined) await this.#settings.writer.send(json)
    }
  }

  #cancel (params: unknown): void {
    if (!isJsonObject(params) || !isRequestId(params.requestId)) return
    this.#requests.get(keyOf(params.requestId))?.call.cancel()
  }

  /**
   * `Mcp-Param-*` headers for a modern `tools/call`, from the tool's
   * annotations in `tools/list`: read when the endpoint first answers
   * HeaderMismatch, and again whenever it does (the list changed).
   */
  async #paramHeaders (message: JsonObject, reload: boolean): Promise<Record<string, string>> {
    const params = isJsonObject(message.params) ? message.params : {}
    if (typeof params.name !== 'string') return {}
    // Not read until a call needs them: a deployment without annotated tools never pays for the lookup.
    if (reload) this.#annotations = this.#readAnnotations(params._meta)
    else if (this.#annotations === undefined) return {}
    const annotations = (await this.#annotations).get(params.name)
    return annotations === undefined ? {} : paramHeaders(annotations, params.arguments)
  }

  async #readAnnotations (meta: unknown): Promise<ReadonlyMap<string, readonly ParamHeader[]>> {
    const tools: unknown[] = []
    let cursor: unknown
    const id = 'fastify-mcp-capabilities/stdio:tools/list'
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const request = { jsonrpc: '2.0', id, method: 'tools/list', params: { ...(typeof cursor === 'string' ? { cursor } : {}), _meta: meta } }
      let result: JsonObject | undefined
      for await (const json of new EndpointCall().send(this.#settings.target, 'POST', this.#headersFor(request), JSON.stringify(request))) {
        const response = responseTo(json, id)
        if (response !== undefined && isJsonObject(response.result)) result = response.result
      }
      if (result === undefined || !Array.isArray(result.tools)) break
      tools.push(...result.tools)
      cursor = result.nextCursor
      if (typeof cursor !== 'string') break
    }
    return deriveParamHeaders({ tools }).tools
  }
}
