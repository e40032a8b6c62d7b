/**
 * The modern era (2026-07-28), stateless: each request carries its version
 * and client capabilities in `_meta`, headers must agree with the body,
 * `server/discover` describes the server, and every result is stamped
 * (lib/response/modern-result.ts).
 *
 * A request runs as the named steps of `handleModern`, top to bottom: check
 * the envelope (`_meta`), the headers and the version; find the method in
 * the table; answer an endpoint-served one here; otherwise open the request
 * (stream, input round, `ctx`, the task plan of a `tools/call`), call the
 * handler through the pipeline (hooks, telemetry), and write the outcome.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type MaybePromise, whenSettled } from '../common/maybe-promise.js'
import type { ToolEntry } from '../definitions/tools.js'
import { callerOf } from '../handler/caller.js'
import { errorOutcome, type FailedOutcome, faultSubject, INTERNAL_ERROR_OUTCOME, type Outcome } from '../handler/invoke.js'
import { RequestContext } from '../handler/request-context.js'
import { type InputReplay, openInputRound } from '../input/input-replay.js'
import { RequestStateCodec } from '../input/request-state.js'
import { clip } from '../protocol/describe.js'
import { isJsonObject, isRequestId } from '../protocol/jsonrpc.js'
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../protocol/log-level.js'
import { echoedUri, ErrorCode, McpError } from '../protocol/mcp-error.js'
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION } from '../protocol/meta.js'
import { type EndpointMethodName, isAdvertised, type MethodEntry, methodIn, type ModuleMethod } from '../protocol/methods.js'
import { isModernVersion, LEGACY_VERSIONS, MODERN_VERSIONS } from '../protocol/versions.js'
import { createModernAnswer } from '../response/modern-result.js'
import { sendError, sendJson } from '../response/reply.js'
import type { ClientInfo, JsonObject } from '../server-module/contract.js'
import { createListenHandler } from '../streams/listen-handler.js'
import { RequestStream } from '../streams/request-stream.js'
import { createdTaskOf, setTaskPlan } from '../tasks/call-plan.js'
import type { TaskService } from '../tasks/service.js'
import type { EraHandler, RequestMessage } from './dispatcher.js'
import { createDiscoverResponder } from './discover-response.js'
import { ParamHeaderValidator } from './param-headers.js'
import { findHeaderMismatch } from './request-headers.js'
import { dispatchedAt } from './request-deadline.js'
import type { EndpointState } from './state.js'

function isClientInfo (value: unknown): value is ClientInfo {
  return isJsonObject(value) && typeof value.name === 'string' && typeof value.version === 'string'
}

/**
 * 2026-07-28 answers an unknown resource with -32602 and the URI in `data`
 * (SEP-2164); a `readResource` that threw the legacy -32002 (or
 * `resourceNotFound()`) gets that answer here. Other methods' errors pass as thrown.
 */
function resourceNotFoundNow (outcome: FailedOutcome, params: JsonObject): Outcome {
  const data = isJsonObject(outcome.data) ? outcome.data : {}
  return {
    ok: false,
    code: ErrorCode.InvalidParams,
    message: outcome.message,
    data: typeof data.uri === 'string' ? data : { ...data, uri: typeof params.uri === 'string' ? echoedUri(params.uri) : params.uri }
  }
}

/** Signs and completes an `input_required` result; only the methods that allow one may send it. */
function completeInputRequired (result: JsonObject, replay: InputReplay | undefined, ctx: RequestContext, subject: () => string): Outcome {
  try {
    if (replay === undefined) throw new Error(`an input_required result is not allowed on ${ctx.method}`)
    return { ok: true, result: replay.seal(result) }
  } catch (err) {
    if (err instanceof McpError) return errorOutcome(err)
    ctx.logger.error({ err, method: ctx.method }, `MCP input_required result of handler ${subject()} could not be completed`)
    return INTERNAL_ERROR_OUTCOME
  }
}

/** An endpoint-served modern method: the request is checked (version, headers, `_meta`) when it runs. */
type ModernEndpointHandler = (message: RequestMessage, clientCapabilities: JsonObject, request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>

/** A checked request: its version, client capabilities and `_meta`. */
interface Checked { readonly version: string, readonly clientCapabilities: JsonObject, readonly meta: JsonObject }

/** An opened module-served request: its `ctx`, the stream it may write on, its input round. */
interface Opened { readonly ctx: RequestContext, readonly stream: RequestStream | undefined, readonly replay: InputReplay | undefined }

/** With authorization: ends a listen stream when its caller's token expires. */
export type ExpiryWatch = (request: FastifyRequest, reply: FastifyReply) => void

/** A legacy-only endpoint's answer to every modern request. */
const refuseModern: EraHandler = (message, _request, reply) =>
  // Not a modern error code: a dual-era client reads this as "legacy server" and sends initialize.
  sendError(reply, 400, message.id, ErrorCode.InvalidRequest,
    `Bad Request: this server speaks only the initialize-based protocol versions ${LEGACY_VERSIONS.join(', ')}`)

export function createModernHandler (state: EndpointState, endAtExpiry?: ExpiryWatch): EraHandler {
  // Legacy only: nothing of the era is built (the result stamping, discover, listen, the requestState codec).
  if (!state.serveModern) return refuseModern
  const { options, tasks } = state
  const caps = state.capabilities.modern
  const answer = createModernAnswer(options.serverInfo, options.cacheHints.results)
  const respondDiscover = createDiscoverResponder(state)
  const listen = createListenHandler({
    registry: state.subscriptions, capabilities: caps, caller: callerOf, endAtExpiry, taskOwner: tasks === undefined ? undefined : (request) => tasks.ownerOf(request)
  })
  const codec = new RequestStateCodec(options.requestState.secret)
  const paramHeaders = new ParamHeaderValidator(options.server, options.validate.paramHeaders, state.composition.tools)
  /** The defined tool a call names, when it names one that is enabled. */
  const toolEntry = (params: JsonObject): ToolEntry | undefined => typeof params.name === 'string' ? state.composition.tools?.get(params.name) : undefined

  /** Whether the extension an endpoint method belongs to is served here. */
  const extensionServed = (entry: MethodEntry): boolean => entry.servedBy === 'module' || entry.extension === undefined || tasks !== undefined
  const isServed = (entry: MethodEntry): boolean => entry.servedBy === 'module' ? isAdvertised(caps, entry.capability) : extensionServed(entry)

  // The methods the endpoint serves itself in this era (the method table marks them).
  const endpointMethods: Record<EndpointMethodName<'modern'>, ModernEndpointHandler> = {
    'server/discover': (message, _capabilities, request, reply) => sendJson(reply, 200, respondDiscover(message.id, request)),
    'subscriptions/listen': ({ id, params }, clientCapabilities, request, reply) => listen(id, params, clientCapabilities, request, reply),
    'tasks/get': serveTaskMethod,
    'tasks/update': serveTaskMethod,
    'tasks/cancel': serveTaskMethod
  }

  /** `tasks/*` (only reached while the extension is served): the store may be remote, so the answer waits for it (respond never rejects). */
  function serveTaskMethod ({ id, method, params }: RequestMessage, clientCapabilities: JsonObject, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return (tasks as TaskService).respond(method, params, request, clientCapabilities).then((outcome) => {
      const { status, body } = answer(id, outcome, false, request, method)
      return sendJson(reply, status, body)
    })
  }

  /** Step 1: the envelope (undefined: refused, answered). `_meta` names a version (string) and the client capabilities (object). */
  function checkEnvelope (message: RequestMessage, reply: FastifyReply): Checked | undefined {
    const id = message.id
    // A modern request's `_meta` is an object (isModernRequest).
    const meta = message.meta as JsonObject
    const version = meta[META_PROTOCOL_VERSION]
    const clientCapabilities = meta[META_CLIENT_CAPABILITIES]
    if (typeof version !== 'string' || !isJsonObject(clientCapabilities)) {
      sendError(reply, 400, id, ErrorCode.InvalidParams,
        `Invalid params: _meta must carry "${META_PROTOCOL_VERSION}" (string) and "${META_CLIENT_CAPABILITIES}" (object)`)
      return undefined
    }
    return { version, clientCapabilities, meta }
  }

  /** Step 2: the headers repeat the body (`Mcp-Method`, `Mcp-Name` with the method's target param), the version is modern, the log level known. */
  function checkHeaders ({ id, method, params }: RequestMessage, entry: MethodEntry | undefined, { version, meta }: Checked, request: FastifyRequest, reply: FastifyReply): FastifyReply | undefined {
    let name: string | undefined
    if (entry?.target !== undefined && extensionServed(entry)) {
      const value = params[entry.target.param]
      if (typeof value !== 'string') return sendError(reply, 400, id, ErrorCode.InvalidParams, `Invalid params: "${entry.target.param}" must be a string`)
      name = value
    }
    const mismatch = findHeaderMismatch(request.headers, version, method, name)
    if (mismatch !== undefined) return sendError(reply, 400, id, ErrorCode.HeaderMismatch, mismatch)
    if (!isModernVersion(version)) {
      return sendError(reply, 400, id, ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${clip(version)}`,
        { supported: [...MODERN_VERSIONS], requested: version })
    }
    const logLevel = meta[META_LOG_LEVEL]
    if (logLevel !== undefined && !isLogLevel(logLevel)) {
      return sendError(reply, 400, id, ErrorCode.InvalidParams, `Invalid params: "${META_LOG_LEVEL}" must be one of ${LOG_LEVELS.join(', ')}`)
    }
    return undefined
  }

  /** Step 3 (undefined: refused, answered): what the handler gets: a stream when something can be streamed, an input round when it may ask, its `ctx`. */
  function openRequest ({ id, method, params }: RequestMessage, entry: ModuleMethod, { version, clientCapabilities, meta }: Checked, request: FastifyRequest, reply: FastifyReply): Opened | undefined {
    const progressToken = isRequestId(meta.progressToken) ? meta.progressToken : undefined
    // Checked by checkHeaders.
    const streamedLevel = caps.logging !== undefined ? meta[META_LOG_LEVEL] as LogLevel | undefined : undefined
    // With neither a progress token nor a log level nothing can be streamed: the answer is plain JSON.
    const stream = progressToken !== undefined || streamedLevel !== undefined
      ? new RequestStream(request, reply, { progressToken, logLevel: streamedLevel, maxStreamBufferBytes: options.limits.maxStreamBufferBytes })
      : undefined
    let replay: InputReplay | undefined
    if (entry.asksClient === true) {
      const opened = openInputRound({ method, params, clientCapabilities, codec, ttlMs: options.requestState.ttlMs, caller: () => callerOf(request) })
      if (!opened.ok) {
        sendError(reply, 400, id, ErrorCode.InvalidParams, opened.message)
        return undefined
      }
      replay = opened.replay
    }
    const clientInfo = isClientInfo(meta[META_CLIENT_INFO]) ? meta[META_CLIENT_INFO] : null
    return { ctx: new RequestContext(request, reply, 'modern', version, method, clientInfo, clientCapabilities, stream, replay), stream, replay }
  }

  /** Step 4: the call, through the pipeline; a tool's call has its task plan and its `Mcp-Param-*` headers checked first. */
  function run (entry: ModuleMethod, params: JsonObject, ctx: RequestContext): MaybePromise<Outcome> {
    if (entry.target?.kind !== 'tool') return invoke(entry, params, ctx)
    if (tasks !== undefined) {
      // `runAsTask` in this handler reads the call's plan (the tool's shaping from its catalogue entry).
      setTaskPlan(ctx.request, { service: tasks, params, shape: toolEntry(params)?.compiled.shape, outcome: state.operations.workOutcome(ctx.request) })
    }
    return paramHeaders.guard(entry, params, ctx, invoke)
  }

  /** The handler through the pipeline, then the list filter (authorization's, the Apps view), if any. */
  function invoke (entry: ModuleMethod, params: JsonObject, ctx: RequestContext): MaybePromise<Outcome> {
    const outcome = state.operations.invoke(entry, params, ctx)
    const filter = state.filterList
    return filter === undefined ? outcome : whenSettled(outcome, (o) => filter(ctx.method, o, ctx.request, true))
  }

  /** Step 5: the outcome as this era answers it, written as JSON or on the stream the handler opened. */
  function finish ({ id, method, params }: RequestMessage, entry: ModuleMethod, { ctx, stream, replay }: Opened, settled: Outcome, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    const { request } = ctx
    const created = createdTaskOf(request)
    // A task whose CreateTaskResult is not the answer would run unseen.
    if (created !== undefined && !(settled.ok && settled.result.taskId === created)) tasks?.abandon(created, request)
    // Named only in a log line, which most requests never write.
    const subject = (): string => faultSubject(entry, params)
    const outcome = settled.ok
      ? settled.result.resultType === 'input_required' ? completeInputRequired(settled.result, replay, ctx, subject) : settled
      : settled.code === ErrorCode.ResourceNotFound && entry.target?.kind === 'resource' ? resourceNotFoundNow(settled, params) : settled
    const { status, body } = answer(id, outcome, entry.cacheable, request, method, subject)
    return stream === undefined ? sendJson(reply, status, body) : stream.respond(status, body)
  }

  // Not async: requests answered without a handler (discover, errors) cost no promise.
  return function handleModern (message, request, reply) {
    const checked = checkEnvelope(message, reply)
    if (checked === undefined) return reply
    const entry = methodIn('modern', message.method)
    const refused = checkHeaders(message, entry, checked, request, reply)
    if (refused !== undefined) return refused
    if (entry === undefined || !isServed(entry)) {
      return sendError(reply, 404, message.id, ErrorCode.MethodNotFound, `Method not found: ${clip(message.method)}`)
    }
    if (entry.servedBy === 'endpoint') return endpointMethods[message.method as EndpointMethodName<'modern'>](message, checked.clientCapabilities, request, reply)
    const opened = openRequest(message, entry, checked, request, reply)
    if (opened === undefined) return reply
    const started = run(entry, message.params, opened.ctx)
    // A handler still running is bounded: timed out, or stopped when the server closes.
    const tracked = started instanceof Promise ? state.inFlight.track(started, (reason) => opened.ctx.abort(reason), undefined, dispatchedAt(request)) : started
    // A synchronous outcome is written now, without a closure to carry it.
    return tracked instanceof Promise ? tracked.then((settled) => finish(message, entry, opened, settled, reply)) : finish(message, entry, opened, tracked, reply)
  }
}
