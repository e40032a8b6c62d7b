/**
 * The modern era (2026-07-28), stateless (docs/protocol.md): each
 * request carries its version and client capabilities in `_meta`, headers
 * must agree with the body, `server/discover` describes the server, and every
 * result is stamped with `resultType`, `_meta.serverInfo` and, for list and
 * read results, cache hints.
 */
import { callerOf, scopeOf } from '../handler/request-scope.js'
import { clip } from '../protocol/describe.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { isStatic, isValidScope, isValidTtl, resolveHints, type CacheHints } from './cache-hints.js'
import { TASKS_EXTENSION } from '../server-module/capabilities.js'
import { createDiscoverResponder } from './discover-response.js'
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, SERVER_INFO_META } from '../protocol/meta.js'
import { type EndpointState, isAdvertised } from './state.js'
import { sendError, sendJson } from '../response/reply.js'
import { RequestContext } from '../handler/request-context.js'
import { type InputReplay, openInputRound } from '../input/input-replay.js'
import { errorOutcome, type FailedOutcome, faultSubject, INTERNAL_ERROR_OUTCOME, type ListFilter, type Outcome } from '../handler/invoke.js'
import { type MaybePromise, whenSettled } from '../common/maybe-promise.js'
import { isJsonObject, isRequestId, type RequestId } from '../protocol/jsonrpc.js'
import type { EraHandler, RequestMessage } from './legacy-era.js'
import { isLogLevel, LOG_LEVELS } from '../protocol/log-level.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { type EndpointMethodName, type MethodEntry, methodIn } from '../protocol/methods.js'
import { isImmutableData, jsonBytesOf, jsonOf, memoizeImmutable } from '../response/frozen-json.js'
import { ParamHeaderValidator } from './param-headers.js'
import { findHeaderMismatch } from './request-headers.js'
import { RequestStateCodec } from '../input/request-state.js'
import { RequestStream } from '../streams/request-stream.js'
import { appendFields, errorResponse, internalErrorResponse, objectJson, partsResponse, type PreparedResult, prepareJson, prepareResult, preparedResponse, resultJsonResponse, resultParts } from '../response/responses.js'
import type { ResultMeta } from '../protocol/schemas.js'
import type { ClientInfo, JsonObject } from '../server-module/contract.js'
import { createListenResponder } from '../streams/subscriptions.js'
import { declaresTasks, type TaskService } from '../tasks/service.js'
import { isModernVersion, LEGACY_VERSIONS, MODERN_VERSIONS } from '../protocol/versions.js'

/** HTTP status of a modern JSON-RPC error (the transport fixes these; others ride on 200). */
export function modernErrorStatus (code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound: return 404
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400
    default: return 200
  }
}

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
    data: typeof data.uri === 'string' ? data : { ...data, uri: params.uri }
  }
}

/** Signs and completes an `input_required` result; only the methods that allow one may send it. */
function completeInputRequired (result: JsonObject, replay: InputReplay | undefined, ctx: RequestContext, subject: string): Outcome {
  try {
    if (replay === undefined) throw new Error(`an input_required result is not allowed on ${ctx.method}`)
    return { ok: true, result: replay.seal(result) }
  } catch (err) {
    if (err instanceof McpError) return errorOutcome(err)
    ctx.logger.error({ err, method: ctx.method }, `MCP input_required result of handler ${subject} could not be completed`)
    return INTERNAL_ERROR_OUTCOME
  }
}

/** An endpoint-served modern method: the request is checked (version, headers, `_meta`) when it runs. */
type ModernEndpointHandler = (message: RequestMessage, clientCapabilities: JsonObject, request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>

export function createModernHandler (state: EndpointState): EraHandler {
  const { options, subscriptions, tasks } = state
  const caps = state.capabilities.modern
  const respondDiscover = createDiscoverResponder(state)
  const cacheHints = options.cacheHints.results
  const serverInfo = options.serverInfo
  const respondListen = createListenResponder(subscriptions, caps)
  const codec = new RequestStateCodec(options.requestState.secret)
  const paramHeaders = new ParamHeaderValidator(options.server, options.validate.paramHeaders)

  function stamp (result: JsonObject, cacheable: boolean, request: FastifyRequest): JsonObject {
    const out: JsonObject = { ...result }
    if (typeof out.resultType !== 'string') out.resultType = 'complete'
    out._meta = isJsonObject(result._meta)
      ? { ...result._meta, [SERVER_INFO_META]: serverInfo }
      : { [SERVER_INFO_META]: serverInfo }
    if (cacheable && out.resultType === 'complete') {
      // A handler may set its own hints on a result; anything invalid falls back to the configured ones.
      let configured: CacheHints | undefined
      if (!isValidTtl(out.ttlMs)) out.ttlMs = (configured ??= resolveHints(cacheHints, request)).ttlMs
      if (!isValidScope(out.cacheScope)) out.cacheScope = (configured ??= resolveHints(cacheHints, request)).cacheScope
    }
    return out
  }

  // The fields every complete modern result gains, serialised once.
  const completeFields = '"resultType":"complete","_meta":' + prepareResult({ [SERVER_INFO_META]: serverInfo } satisfies ResultMeta).json
  const hintFields = (hints: CacheHints): string => ',"ttlMs":' + String(hints.ttlMs) + ',"cacheScope":"' + hints.cacheScope + '"'
  const staticHintFields = isStatic(cacheHints) ? hintFields(cacheHints) : undefined

  // Immutable results whose stamp never varies (static or no hints): the response tail is prepared once.
  const preparedCacheable = new WeakMap<object, PreparedResult | undefined>()
  const preparedPlain = new WeakMap<object, PreparedResult | undefined>()
  const prepareStamped = (fields: string) => (result: object): PreparedResult | undefined => {
    const json = appendFields(jsonOf(result), completeFields + fields)
    return json === undefined ? undefined : prepareJson(json)
  }
  const prepareCacheable = prepareStamped(staticHintFields ?? '')
  const preparePlain = prepareStamped('')

  /** The cache-hint members a result gets (none when it is not cacheable). */
  const hintsFor = (cacheable: boolean, request: FastifyRequest): string =>
    cacheable ? (staticHintFields ?? hintFields(resolveHints(cacheHints, request))) : ''

  /** The response carrying the stamped result; the common case splices text instead of copying the result. */
  function stampedResponse (id: RequestId, result: JsonObject, cacheable: boolean, request: FastifyRequest): string | Buffer {
    if (result.resultType === undefined && result._meta === undefined && result.ttlMs === undefined && result.cacheScope === undefined) {
      // A catalogue's list: its preset bytes copied behind the id, never serialised or encoded whole.
      const parts = jsonBytesOf(result)
      if (parts !== undefined) return partsResponse(id, resultParts(parts, completeFields + hintsFor(cacheable, request)))
      if (!cacheable || staticHintFields !== undefined) {
        // Only immutable results are ever stored, so a hit needs no further check.
        const cache = cacheable ? preparedCacheable : preparedPlain
        const prepared = cache.get(result) ?? (isImmutableData(result)
          ? memoizeImmutable(cache, result, cacheable ? prepareCacheable : preparePlain)
          : undefined)
        if (prepared !== undefined) return preparedResponse(id, prepared)
      }
      const json = appendFields(jsonOf(result), completeFields + hintsFor(cacheable, request))
      if (json !== undefined) return resultJsonResponse(id, json)
    }
    return resultJsonResponse(id, objectJson(stamp(result, cacheable, request)))
  }

  /**
   * Status and body of an outcome. Handler output JSON cannot carry (a
   * BigInt, a cycle, a throwing getter or toJSON, McpError data of that kind)
   * is a server fault: logged, answered 200 with -32603 and the id.
   */
  function answer (id: RequestId, outcome: Outcome, cacheable: boolean, request: FastifyRequest, method: string, subject = method): { status: number, body: string | Buffer } {
    try {
      return outcome.ok
        ? { status: 200, body: stampedResponse(id, outcome.result, cacheable, request) }
        : { status: modernErrorStatus(outcome.code), body: errorResponse(id, outcome.code, outcome.message, outcome.data) }
    } catch (err) {
      request.log.error({ err, method }, `MCP handler ${subject} output could not be serialised as JSON`)
      return { status: 200, body: internalErrorResponse(id) }
    }
  }

  /** Whether the extension an endpoint method belongs to is served here. */
  const extensionServed = (entry: MethodEntry): boolean => entry.servedBy === 'module' || entry.extension === undefined || tasks !== undefined
  const isServed = (entry: MethodEntry): boolean => entry.servedBy === 'module' ? isAdvertised(caps, entry.capability) : extensionServed(entry)

  // The methods the endpoint serves itself in this era (the method table marks them).
  const endpointMethods: Record<EndpointMethodName<'modern'>, ModernEndpointHandler> = {
    'server/discover': (message, _capabilities, request, reply) => sendJson(reply, 200, respondDiscover(message.id, request)),
    'subscriptions/listen': ({ id, params }, clientCapabilities, request, reply) => {
      const filter = params.notifications
      if (tasks !== undefined && isJsonObject(filter) && filter.taskIds !== undefined && !declaresTasks(clientCapabilities)) {
        return sendError(reply, 400, id, ErrorCode.MissingRequiredClientCapability, 'Missing required client capability: task notifications need the tasks extension',
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
      }
      // Task events reach only streams of the task's owner: the stream remembers whose it is.
      let owner: string | undefined
      if (tasks !== undefined) {
        try {
          owner = tasks.ownerOf(request)
        } catch (err) {
          request.log.error({ err }, 'MCP task owner could not be computed')
          return sendError(reply, modernErrorStatus(ErrorCode.InternalError), id, ErrorCode.InternalError, 'Internal error')
        }
      }
      return respondListen(id, params, reply, owner, callerOf(request))
    },
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

  // Not async: requests answered without a handler (discover, errors) cost no promise.
  return function handleModern (message, request, reply) {
    const { id, method, params } = message
    const meta = params._meta as JsonObject
    const version = meta[META_PROTOCOL_VERSION]
    const clientCapabilities = meta[META_CLIENT_CAPABILITIES]

    if (!state.serveModern) {
      // Not a modern error code: a dual-era client reads this as "legacy server" and sends initialize.
      return sendError(reply, 400, id, ErrorCode.InvalidRequest,
        `Bad Request: this server speaks only the initialize-based protocol versions ${LEGACY_VERSIONS.join(', ')}`)
    }
    if (typeof version !== 'string' || !isJsonObject(clientCapabilities)) {
      return sendError(reply, 400, id, ErrorCode.InvalidParams,
        `Invalid params: _meta must carry "${META_PROTOCOL_VERSION}" (string) and "${META_CLIENT_CAPABILITIES}" (object)`)
    }

    const entry = methodIn('modern', method)
    let name: string | undefined
    if (entry?.nameParam !== undefined && extensionServed(entry)) {
      // `Mcp-Name` repeats the param naming what the request acts on (a tool, prompt, resource or task).
      const value = params[entry.nameParam]
      if (typeof value !== 'string') {
        return sendError(reply, 400, id, ErrorCode.InvalidParams, `Invalid params: "${entry.nameParam}" must be a string`)
      }
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

    if (entry === undefined || !isServed(entry)) {
      return sendError(reply, 404, id, ErrorCode.MethodNotFound, `Method not found: ${clip(method)}`)
    }
    if (entry.servedBy === 'endpoint') return endpointMethods[method as EndpointMethodName<'modern'>](message, clientCapabilities, request, reply)

    const clientInfo = isClientInfo(meta[META_CLIENT_INFO]) ? meta[META_CLIENT_INFO] : null
    const progressToken = isRequestId(meta.progressToken) ? meta.progressToken : undefined
    const streamedLevel = caps.logging !== undefined ? logLevel : undefined
    // With neither a progress token nor a log level nothing can be streamed: the answer is plain JSON.
    const stream = progressToken !== undefined || streamedLevel !== undefined
      ? new RequestStream(request, reply, { progressToken, logLevel: streamedLevel, maxStreamBufferBytes: options.limits.maxStreamBufferBytes })
      : undefined
    let replay: InputReplay | undefined
    if (entry.asksClient === true) {
      const opened = openInputRound({ method, params, clientCapabilities, codec, ttlMs: options.requestState.ttlMs, caller: () => callerOf(request) })
      if (!opened.ok) return sendError(reply, 400, id, ErrorCode.InvalidParams, opened.message)
      replay = opened.replay
    }
    const ctx = new RequestContext(request, reply, 'modern', version, method, clientInfo, clientCapabilities, stream, replay)
    if (tasks !== undefined && method === 'tools/call') {
      // `runAsTask` in this handler may create a task: it finds the service and the arguments in the request's scope.
      const scope = scopeOf(request)
      scope.tasks = tasks
      scope.params = params
    }
    const invoke = (): MaybePromise<Outcome> => {
      const outcome = state.operations.invoke(entry, params, ctx)
      return state.filterList === undefined ? outcome : whenSettled(outcome, (o) => (state.filterList as ListFilter)(method, o, request, true))
    }
    const started = method === 'tools/call' ? paramHeaders.guard(params, ctx, invoke) : invoke()
    // A handler still running is bounded: timed out, or stopped when the server closes.
    const tracked = started instanceof Promise ? state.inFlight.track(started, (reason) => ctx.abort(reason)) : started
    return whenSettled(tracked, (settled) => {
      const created = request.mcpScope?.createdTask
      // A task whose CreateTaskResult is not the answer would run unseen.
      if (created !== undefined && !(settled.ok && settled.result.taskId === created)) tasks?.abandon(created, request)
      const outcome = settled.ok
        ? settled.result.resultType === 'input_required' ? completeInputRequired(settled.result, replay, ctx, faultSubject(entry, params)) : settled
        : settled.code === ErrorCode.ResourceNotFound && method === 'resources/read' ? resourceNotFoundNow(settled, params) : settled
      const { status, body } = answer(id, outcome, entry.cacheable, request, method, faultSubject(entry, params))
      return stream === undefined ? sendJson(reply, status, body) : stream.respond(status, body)
    })
  }
}
