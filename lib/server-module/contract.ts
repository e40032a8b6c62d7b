/**
 * The server module contract: an object (or class instance) whose methods are
 * MCP handlers, each called as `handler(params, ctx)`.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import type {
  InputRequiredResult,
  ClientRequestOptions,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult
} from '../protocol/client-request-wire.js'
import type { AuthInfo } from './auth-info.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import type {
  CallToolParams,
  CallToolResult,
  CompleteParams,
  CompleteResult,
  EmptyResult,
  GetPromptParams,
  GetSkillParams,
  GetSkillResult,
  ListSkillsResult,
  ReadResourceDirectoryParams,
  ReadResourceDirectoryResult,
  GetPromptResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  PaginatedParams,
  ReadResourceParams,
  ReadResourceResult,
  SetLevelParams,
  SubscribeParams
} from '../protocol/schemas.js'
import type { LogLevel } from '../protocol/log-level.js'
import type { TASK_CREATED } from './task-created.js'
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

/**
 * What `runAsTask` answers when it created a task (`resultType: "task"`):
 * only `runAsTask` makes one (marked, see task-created.ts), so a defined
 * tool may return it whatever its `output`.
 */
export interface TaskCreatedResult {
  resultType: 'task'
  readonly [TASK_CREATED]: true
  [key: string]: unknown
}

/**
 * Each handler's params and result, from the wire schemas: a module written
 * with `satisfies ServerModule` gets completion, and a result of the wrong
 * shape (`{ content: 42 }`) does not compile. Methods that can ask the client
 * for input may also answer `inputRequired(...)`; `callTool` may answer with
 * `runAsTask(...)`.
 */
export interface HandlerSignatures {
  listTools: Handler<PaginatedParams, ListToolsResult>
  callTool: Handler<CallToolParams, CallToolResult | InputRequiredResult | TaskCreatedResult>
  listResources: Handler<PaginatedParams, ListResourcesResult>
  readResource: Handler<ReadResourceParams, ReadResourceResult | InputRequiredResult>
  listResourceTemplates: Handler<PaginatedParams, ListResourceTemplatesResult>
  listPrompts: Handler<PaginatedParams, ListPromptsResult>
  getPrompt: Handler<GetPromptParams, GetPromptResult | InputRequiredResult>
  complete: Handler<CompleteParams, CompleteResult>
  subscribeResource: Handler<SubscribeParams, EmptyResult | undefined | void>
  unsubscribeResource: Handler<SubscribeParams, EmptyResult | undefined | void>
  setLogLevel: Handler<SetLevelParams, EmptyResult | undefined | void>
  /** The Skills extension (`defineSkills` writes these): `skills/list`, `skills/get`, `resources/directory/read`. */
  listSkills: Handler<PaginatedParams, ListSkillsResult>
  getSkill: Handler<GetSkillParams, GetSkillResult>
  readResourceDirectory: Handler<ReadResourceDirectoryParams, ReadResourceDirectoryResult>
}

/** `capabilities`: a declaration, or a function of the era returning one. */
export type CapabilitiesOption = CapabilitiesDeclaration | ((context: { era: Era }) => CapabilitiesDeclaration)

/**
 * A server module with every handler typed from the wire schemas: write
 * `const server = { ... } satisfies ServerModule` (or `implements` it in a
 * class) to have params typed and results checked at compile time.
 */
export type ServerModule = {
  [K in HandlerName]?: HandlerSignatures[K]
} & {
  capabilities?: CapabilitiesOption
}

/**
 * What the `server` option accepts: any object whose handler-named members
 * are functions, params and results unchecked by the compiler (modules
 * written before ServerModule was typed keep compiling; results can still be
 * checked at run time with `validate.results`).
 */
export type AnyServerModule = {
  [K in HandlerName]?: Handler<any, any>
} & {
  capabilities?: CapabilitiesOption
}
