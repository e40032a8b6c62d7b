/**
 * An in-process MCP client for tests: speaks to a Fastify app through
 * `app.inject` (no socket), in the era you choose, with the headers and
 * `_meta` each era requires, and hands back typed results. A JSON-RPC error
 * is thrown as an `McpError` carrying the code, message, data and HTTP status.
 */
import type { FastifyInstance, InjectOptions } from 'fastify'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { type Era, METHODS } from '../protocol/methods.js'
import { deriveParamHeaders, type ParamHeader } from '../endpoint/param-headers.js'
import type { JsonObject } from '../server-module/contract.js'
import type { LogLevel } from '../protocol/log-level.js'
import { META_LOG_LEVEL } from '../protocol/meta.js'
import { LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION } from '../protocol/versions.js'
import type {
  CallToolResult,
  CompleteParams,
  CompleteResult,
  DiscoverResult,
  GetPromptResult,
  InitializeResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ReadResourceResult
} from '../protocol/schemas.js'

export interface InjectClientOptions<E extends Era = Era> {
  /** Which protocol era to speak; default `'modern'`. */
  era?: E
  /** The protocol version to send; default the newest of the era. */
  protocolVersion?: string
  /** The endpoint path; default where the plugin is mounted (`app.mcp.path`). */
  path?: string
  /** Headers sent with every request (say, `authorization`). */
  headers?: Record<string, string>
  /** Modern era: the client capabilities declared in `_meta`; default `{}`. */
  clientCapabilities?: JsonObject
  /** Modern era: `clientInfo` in `_meta`. */
  clientInfo?: { name: string, version: string }
  /** Notifications that arrive on any streamed response (progress, log messages). */
  onNotification?: NotificationListener
}

/** A notification streamed with a response (`notifications/progress`, `notifications/message`). */
export type NotificationListener = (notification: { method: string, params?: JsonObject }) => void

/**
 * Per-call options of `callTool`, `getPrompt` and `readResource`: what a
 * real client puts in the request's `_meta`, and who hears what the answer
 * streams.
 */
export interface CallOptions {
  /** Sent as `_meta.progressToken`: the handler's `ctx.progress()` is then streamed back. */
  progressToken?: string | number
  /**
   * The least severe log message this call should stream back. Modern: sent
   * as `_meta["io.modelcontextprotocol/logLevel"]` on this request. Legacy
   * (no per-request level): sent first as `logging/setLevel`, which the
   * endpoint keeps for this client's caller (its `headers`) until changed.
   */
  logLevel?: LogLevel
  /** Hears the notifications streamed with this call's answer (the client-wide `onNotification` hears them too). */
  onNotification?: NotificationListener
  /** More `_meta` for the request (the era's own keys are added). */
  _meta?: JsonObject
}

/** An `McpError` from the endpoint, with the HTTP status it came with. */
export class McpResponseError extends McpError {
  readonly status: number
  constructor (status: number, code: number, message: string, data?: unknown) {
    super(code, message, data)
    this.name = 'McpResponseError'
    this.status = status
  }
}

export type DiscoverAnswer<E extends Era> = E extends 'modern' ? DiscoverResult : E extends 'legacy' ? InitializeResult : DiscoverResult | InitializeResult

export interface InjectClient<E extends Era = Era> {
  readonly era: E
  readonly protocolVersion: string
  /** Modern: `server/discover`; legacy: `initialize` (stateless, nothing to keep). */
  discover (): Promise<DiscoverAnswer<E>>
  listTools (cursor?: string): Promise<ListToolsResult>
  /** `tools/call`; `options` carry a progress token, a log level and a listener for what the answer streams. */
  callTool (name: string, args?: JsonObject, options?: CallOptions): Promise<CallToolResult>
  listPrompts (cursor?: string): Promise<ListPromptsResult>
  getPrompt (name: string, args?: Record<string, string>, options?: CallOptions): Promise<GetPromptResult>
  listResources (cursor?: string): Promise<ListResourcesResult>
  listResourceTemplates (cursor?: string): Promise<ListResourceTemplatesResult>
  readResource (uri: string, options?: CallOptions): Promise<ReadResourceResult>
  /** Legacy `logging/setLevel`: the level this client's caller gets log messages at, from now on. */
  setLogLevel (level: LogLevel): Promise<void>
  complete (ref: CompleteParams['ref'], argument: { name: string, value: string }, context?: Record<string, string>): Promise<CompleteResult>
  /** Any method: the raw result object. */
  request (method: string, params?: JsonObject): Promise<JsonObject>
}

/** A header value as the transport writes it: as is when plain ASCII, else `=?base64?...?=`. */
function headerValue (value: string): string {
  return /^[\x20-\x7e]*$/.test(value) && value.trim() === value ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

function paramHeaders (annotations: readonly ParamHeader[], args: JsonObject): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const { header, path } of annotations) {
    let value: unknown = args
    for (const key of path) value = value !== null && typeof value === 'object' ? (value as JsonObject)[key] : undefined
    if (value === undefined || value === null) continue
    headers[header] = headerValue(String(value))
  }
  return headers
}

/** The last JSON-RPC response of an SSE body; notifications before it go to `onNotification`. */
function fromEventStream (body: string, id: number, onNotification: NotificationListener | undefined): JsonObject | undefined {
  let response: JsonObject | undefined
  for (const event of body.split(/\r?\n\r?\n/)) {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith('data:')).map((line) => line.slice(5).replace(/^ /, '')).join('\n')
    if (data === '') continue
    const message = JSON.parse(data) as JsonObject
    if (message.id === id && (Object.hasOwn(message, 'result') || Object.hasOwn(message, 'error'))) response = message
    else if (typeof message.method === 'string' && message.id === undefined) onNotification?.(message as { method: string, params?: JsonObject })
  }
  return response
}

export function injectClient<E extends Era = 'modern'> (app: FastifyInstance, options: InjectClientOptions<E> = {}): InjectClient<E> {
  const era = (options.era ?? 'modern') as E
  if (era !== 'modern' && era !== 'legacy') throw new TypeError(`injectClient: era must be "modern" or "legacy", not ${JSON.stringify(era)}`)
  const protocolVersion = options.protocolVersion ?? (era === 'modern' ? LATEST_MODERN_VERSION : LATEST_LEGACY_VERSION)
  const clientInfo = options.clientInfo ?? { name: 'inject-client', version: '1.0.0' }
  let nextId = 1
  // Modern tools/call mirrors x-mcp-header arguments into headers: the annotations come from tools/list, once.
  let annotated: Promise<ReadonlyMap<string, readonly ParamHeader[]>> | undefined

  async function path (): Promise<string> {
    if (options.path !== undefined) return options.path
    await app.ready()
    const mounted = (app as { mcp?: { path?: unknown } }).mcp?.path
    if (typeof mounted !== 'string') throw new TypeError('injectClient: the app has no fastify.mcp (register fastify-mcp-capabilities first) and no "path" was given')
    return mounted
  }

  async function send (method: string, params: JsonObject, extraHeaders: Record<string, string> = {}, listener?: NotificationListener): Promise<JsonObject> {
    const id = nextId++
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...options.headers,
      ...extraHeaders
    }
    const body: JsonObject = { jsonrpc: '2.0', id, method, params }
    if (era === 'modern') {
      const meta: JsonObject = {
        ...(params._meta as JsonObject | undefined),
        'io.modelcontextprotocol/protocolVersion': protocolVersion,
        'io.modelcontextprotocol/clientCapabilities': options.clientCapabilities ?? {},
        'io.modelcontextprotocol/clientInfo': clientInfo
      }
      body.params = { ...params, _meta: meta }
      headers['mcp-protocol-version'] = protocolVersion
      headers['mcp-method'] = method
      const nameParam = METHODS[method]?.target?.param
      if (nameParam !== undefined && typeof params[nameParam] === 'string') headers['mcp-name'] = headerValue(params[nameParam] as string)
    } else if (method !== 'initialize') {
      headers['mcp-protocol-version'] = protocolVersion
    }
    const inject: InjectOptions = { method: 'POST', url: await path(), headers, payload: JSON.stringify(body) }
    const response = await app.inject(inject)
    const type = String(response.headers['content-type'] ?? '')
    let message: JsonObject | undefined
    try {
      message = type.startsWith('text/event-stream')
        ? fromEventStream(response.body, id, notify(listener))
        : JSON.parse(response.body) as JsonObject
    } catch {
      message = undefined
    }
    if (message === undefined || message === null || typeof message !== 'object') {
      throw new McpResponseError(response.statusCode, ErrorCode.InternalError, `${method}: HTTP ${response.statusCode} without a JSON-RPC response: ${response.body.slice(0, 200)}`)
    }
    const error = message.error as { code?: unknown, message?: unknown, data?: unknown } | undefined
    if (error !== undefined) {
      throw new McpResponseError(response.statusCode, typeof error.code === 'number' ? error.code : ErrorCode.InternalError,
        typeof error.message === 'string' ? error.message : 'error without a message', error.data)
    }
    return message.result as JsonObject
  }

  /** The client-wide listener and this call's, each hearing every notification. */
  function notify (listener: NotificationListener | undefined): NotificationListener | undefined {
    const all = options.onNotification
    if (listener === undefined || all === undefined) return listener ?? all
    return (notification) => {
      all(notification)
      listener(notification)
    }
  }

  /** Sends a request carrying the per-call options (legacy: the level goes first, as logging/setLevel). */
  async function call (method: string, params: JsonObject, callOptions: CallOptions | undefined, headers?: Record<string, string>): Promise<JsonObject> {
    if (callOptions === undefined) return await send(method, params, headers)
    const meta: JsonObject = { ...callOptions._meta }
    if (callOptions.progressToken !== undefined) meta.progressToken = callOptions.progressToken
    if (callOptions.logLevel !== undefined) {
      if (era === 'modern') meta[META_LOG_LEVEL] = callOptions.logLevel
      else await send('logging/setLevel', { level: callOptions.logLevel })
    }
    return await send(method, Object.keys(meta).length === 0 ? params : { ...params, _meta: meta }, headers, callOptions.onNotification)
  }

  function list (method: string, cursor: string | undefined): Promise<JsonObject> {
    return send(method, cursor === undefined ? {} : { cursor })
  }

  async function headersFor (name: string, args: JsonObject): Promise<Record<string, string>> {
    if (era !== 'modern') return {}
    annotated ??= send('tools/list', {}).then((result) => deriveParamHeaders(result).tools, () => new Map())
    const annotations = (await annotated).get(name)
    return annotations === undefined ? {} : paramHeaders(annotations, args)
  }

  return {
    era,
    protocolVersion,
    async discover () {
      const result = era === 'modern'
        ? await send('server/discover', {})
        : await send('initialize', { protocolVersion, capabilities: options.clientCapabilities ?? {}, clientInfo })
      return result as DiscoverAnswer<E>
    },
    listTools: async (cursor) => await list('tools/list', cursor) as ListToolsResult,
    callTool: async (name, args = {}, callOptions) =>
      await call('tools/call', { name, arguments: args }, callOptions, await headersFor(name, args)) as CallToolResult,
    listPrompts: async (cursor) => await list('prompts/list', cursor) as ListPromptsResult,
    getPrompt: async (name, args, callOptions) =>
      await call('prompts/get', args === undefined ? { name } : { name, arguments: args }, callOptions) as GetPromptResult,
    listResources: async (cursor) => await list('resources/list', cursor) as ListResourcesResult,
    listResourceTemplates: async (cursor) => await list('resources/templates/list', cursor) as ListResourceTemplatesResult,
    readResource: async (uri, callOptions) => await call('resources/read', { uri }, callOptions) as ReadResourceResult,
    async setLogLevel (level) {
      await send('logging/setLevel', { level })
    },
    complete: async (ref, argument, context) =>
      await send('completion/complete', context === undefined ? { ref, argument } : { ref, argument, context: { arguments: context } }) as CompleteResult,
    request: (method, params = {}) => send(method, params)
  }
}
