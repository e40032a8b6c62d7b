/**
 * The server module contract: an object (or class instance) whose methods are
 * MCP handlers, each called as `handler(params, ctx)`.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type {
  ClientRequestOptions,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult
} from '../protocol/client-requests.js'
import type { AuthInfo } from './auth-info.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import type { LogLevel } from '../protocol/log-level.js'
import type { Era, HandlerName } from '../protocol/methods.js'

export type { JsonObject }

/** Client identity as the request declared it (`clientInfo` / `_meta`). */
export interface ClientInfo {
  name: string
  version: string
  [key: string]: unknown
}

/** What a handler knows about the request it serves. */
export interface HandlerContext {
  /** The Fastify request carrying the JSON-RPC message. */
  readonly request: FastifyRequest
  readonly era: Era
  readonly protocolVersion: string
  /** The JSON-RPC method being served. */
  readonly method: string
  readonly clientInfo: ClientInfo | null
  readonly clientCapabilities: JsonObject
  /** The Fastify request logger (server-side logs, never sent to the client). */
  readonly logger: FastifyBaseLogger
  /** The verified access token when the endpoint has `authorization` (undefined otherwise). */
  readonly auth?: AuthInfo
  /** Fires when the client goes away (closes the response stream) before the answer is written. */
  readonly signal: AbortSignal
  /**
   * Reports progress with `notifications/progress`, only when the request carried
   * `_meta.progressToken`; a value that does not increase is dropped. The first
   * notification turns the response into an SSE stream.
   */
  progress (progress: number, total?: number, message?: string): void
  /**
   * Sends `notifications/message` to this request's client when `level` is at or
   * above the level it asked for (modern: `_meta["io.modelcontextprotocol/logLevel"]`,
   * none set = nothing sent; legacy: the level of the last `logging/setLevel`).
   */
  log (level: LogLevel, data: unknown, logger?: string): void
  /** Throws the protocol's "missing required client capability" error unless the client declared them all. */
  requireClientCapabilities (...names: string[]): void
  /**
   * Asks the user for input through the client (`elicitation/create`) and
   * resolves to the client's `ElicitResult`. Modern era: the answer arrives
   * on a retry of the request (multi round-trip; the handler runs again and
   * this call then resolves at once), -32021 when the request did not declare
   * `elicitation` (`elicitation.url` for URL mode). Legacy era: a request on
   * this request's SSE stream; the client POSTs the answer back to the same
   * process. Only in tools/call, prompts/get and resources/read handlers.
   */
  elicit (params: ElicitParams, options?: ClientRequestOptions): Promise<ElicitResult>
  /** Asks the client's LLM (`sampling/createMessage`), as `elicit` does; needs the `sampling` capability. */
  createMessage (params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult>
  /** Asks for the client's roots (`roots/list`), as `elicit` does; needs the `roots` capability. */
  listRoots (options?: ClientRequestOptions): Promise<ListRootsResult>
  /**
   * Modern era: the `requestState` of a hand-built `input_required` result
   * (see `inputRequired()`), verified, when the client retries; else undefined.
   */
  readonly requestState: string | undefined
}

export type Handler<P extends JsonObject = JsonObject, R = unknown> =
  (params: P, ctx: HandlerContext) => R | Promise<R>

/**
 * A capabilities declaration that replaces the derived base set. `false`
 * (or an absent key) switches a capability off whatever handlers exist.
 */
export interface CapabilitiesDeclaration {
  tools?: { listChanged?: boolean } | false
  resources?: { listChanged?: boolean, subscribe?: boolean } | false
  prompts?: { listChanged?: boolean } | false
  completions?: JsonObject | false
  logging?: JsonObject | false
  experimental?: Record<string, JsonObject>
  extensions?: Record<string, JsonObject>
}

export type ServerModule = {
  [K in HandlerName]?: Handler<any, any>
} & {
  capabilities?: CapabilitiesDeclaration | ((context: { era: Era }) => CapabilitiesDeclaration)
}
