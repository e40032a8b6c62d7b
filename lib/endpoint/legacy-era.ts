/**
 * The legacy era (2024-11-05 .. 2025-11-25) over stateless Streamable HTTP
 * (docs/protocol.md): `initialize`, `ping`, notifications, and the
 * server module's methods. In a modern-only deployment, every legacy request
 * gets the "unsupported protocol version" error naming the modern versions,
 * the only diagnostic a legacy client can show.
 *
 * Logging without sessions: the endpoint answers `logging/setLevel` itself
 * (after the module's own `setLogLevel`, when it has one, accepted it) and
 * keeps the level per caller (lib/endpoint/legacy-log-level.ts), on every
 * instance sharing the event bus; a caller that set no level gets no log
 * messages.
 */
import { clip, quote } from '../protocol/describe.js'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { StreamClientRequests } from '../input/stream-client-requests.js'
import type { EndpointState } from './state.js'
import { sendError, sendJson } from '../response/reply.js'
import { RequestContext } from '../handler/request-context.js'
import { faultSubject, type ListFilter } from '../handler/invoke.js'
import { whenSettled } from '../common/maybe-promise.js'
import { CANCELLED } from '../handler/in-flight.js'
import { isJsonObject, isRequestId, type RequestId } from '../protocol/jsonrpc.js'
import type { EraHandler, RequestMessage } from './dispatcher.js'
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../protocol/log-level.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { type EndpointMethodName, isAdvertised, methodIn } from '../protocol/methods.js'
import type { ServerInfo } from '../options.js'
import { RequestStream } from '../streams/request-stream.js'
import { errorResponse, internalErrorResponse, type PreparedResult, prepareResult, preparedResponse, resultResponse } from '../response/responses.js'
import type { InitializeResult } from '../protocol/schemas.js'
import { isLegacyVersion, LATEST_LEGACY_VERSION, LEGACY_VERSIONS, type LegacyVersion, MODERN_VERSIONS } from '../protocol/versions.js'
import { callerOf } from '../handler/caller.js'
import { dispatchedAt } from './request-deadline.js'

/** A legacy request without the version header is taken as 2025-03-26, as the transport allows. */
const VERSION_WITHOUT_HEADER = '2025-03-26'
const EMPTY_RESULT = prepareResult({})

/** `Implementation` fields each legacy version defines; older clients get only theirs. */
function serverInfoFor (version: LegacyVersion, info: Readonly<ServerInfo>): ServerInfo {
  const out: ServerInfo = { name: info.name, version: info.version }
  if (version >= '2025-06-18' && info.title !== undefined) out.title = info.title
  if (version >= '2025-11-25') {
    if (info.description !== undefined) out.description = info.description
    if (info.icons !== undefined) out.icons = info.icons
    if (info.websiteUrl !== undefined) out.websiteUrl = info.websiteUrl
  }
  return out
}

/** An endpoint-served legacy method; `protocolVersion` is the version header's (or the default), unchecked for `initialize`. */
type LegacyEndpointHandler = (message: RequestMessage, protocolVersion: string, request: FastifyRequest, reply: FastifyReply) => FastifyReply

function unsupported (reply: FastifyReply, id: RequestId, requested: string): FastifyReply {
  return sendError(reply, 400, id, ErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${clip(requested)}: this server speaks only ${MODERN_VERSIONS.join(', ')}`,
    { supported: [...MODERN_VERSIONS], requested })
}

/** A modern-only endpoint's answer to every legacy request: the version it asked for (in `initialize`'s params, else the header) is unsupported. */
const refuseLegacy: EraHandler = ({ id, method, params }, request, reply) => {
  const entry = methodIn('legacy', method)
  const negotiates = entry?.servedBy === 'endpoint' && entry.negotiatesVersion === true
  const requested = negotiates && typeof params.protocolVersion === 'string' ? params.protocolVersion : request.headers['mcp-protocol-version']
  return unsupported(reply, id, typeof requested === 'string' ? requested : VERSION_WITHOUT_HEADER)
}

export function createLegacyHandler (state: EndpointState): EraHandler {
  // Modern only: nothing of the era is built (initialize results, the method handlers).
  if (!state.serveLegacy) return refuseLegacy
  const { options, capabilities, pending, legacyLogLevel } = state
  const caps = capabilities.legacy

  const initializeResults = new Map<string, PreparedResult>()
  for (const version of LEGACY_VERSIONS) {
    const result: InitializeResult = {
      protocolVersion: version,
      capabilities: caps,
      serverInfo: serverInfoFor(version, options.serverInfo)
    }
    if (options.instructions !== undefined) result.instructions = options.instructions
    initializeResults.set(version, prepareResult(result))
  }

  // The methods the endpoint serves itself in this era (the method table marks them).
  const endpointMethods: Record<EndpointMethodName<'legacy'>, LegacyEndpointHandler> = {
    initialize ({ id, params }, _protocolVersion, _request, reply) {
      const requested = params.protocolVersion
      if (typeof requested !== 'string' || !isJsonObject(params.capabilities) || !isJsonObject(params.clientInfo)) {
        return sendError(reply, 400, id, ErrorCode.InvalidParams,
          'Invalid params: initialize needs protocolVersion (string), capabilities (object) and clientInfo (object)')
      }
      const version = isLegacyVersion(requested) ? requested : LATEST_LEGACY_VERSION
      return sendJson(reply, 200, preparedResponse(id, initializeResults.get(version) as PreparedResult))
    },
    ping: ({ id }, _protocolVersion, _request, reply) => sendJson(reply, 200, preparedResponse(id, EMPTY_RESULT))
  }

  // Not async: initialize, ping and errors cost no promise.
  return function handleLegacy (message, request, reply) {
    const { id, method, params } = message
    const header = request.headers['mcp-protocol-version']
    const entry = methodIn('legacy', method)
    // `initialize` negotiates the version in its params; every other request names it in the header.
    const negotiates = entry?.servedBy === 'endpoint' && entry.negotiatesVersion === true

    let protocolVersion: string = VERSION_WITHOUT_HEADER
    if (header !== undefined && !negotiates) {
      if (!isLegacyVersion(header)) {
        return sendError(reply, 400, id, ErrorCode.InvalidRequest,
          `Bad Request: unsupported MCP-Protocol-Version ${quote(String(header))} (supported: ${LEGACY_VERSIONS.join(', ')})`)
      }
      protocolVersion = header
    }

    if (entry === undefined || (entry.servedBy === 'module' && !isAdvertised(caps, entry.capability))) {
      return sendError(reply, 200, id, ErrorCode.MethodNotFound, `Method not found: ${clip(method)}`)
    }
    if (entry.servedBy === 'endpoint') return endpointMethods[method as EndpointMethodName<'legacy'>](message, protocolVersion, request, reply)
    if (method === 'logging/setLevel' && !isLogLevel(params.level)) {
      return sendError(reply, 200, id, ErrorCode.InvalidParams, `Invalid params: "level" must be one of ${LOG_LEVELS.join(', ')}`)
    }
    const meta = message.meta
    const stream = new RequestStream(request, reply, {
      progressToken: meta !== undefined && isRequestId(meta.progressToken) ? meta.progressToken : undefined,
      logLevel: caps.logging !== undefined ? legacyLogLevel.levelFor(request) : undefined,
      progressMessage: protocolVersion !== '2024-11-05',
      maxStreamBufferBytes: options.limits.maxStreamBufferBytes
    })
    const clientRequests = entry.asksClient === true ? new StreamClientRequests(pending, stream, protocolVersion, reply.raw, callerOf(request)) : undefined
    const ctx = new RequestContext(request, reply, 'legacy', protocolVersion, method, null, {}, stream, clientRequests)
    const started = state.operations.invoke(entry, params, ctx)
    // A handler still running is bounded: timed out, or stopped when the server closes.
    // Its caller may cancel it by id (notifications/cancelled); nobody else can.
    const invoked = started instanceof Promise ? state.inFlight.track(started, (reason) => ctx.abort(reason), { caller: callerOf(request), id }, dispatchedAt(request)) : started
    const filtered = state.filterList === undefined ? invoked : whenSettled(invoked, (o) => (state.filterList as ListFilter)(method, o, request, false))
    // A setLevel answer waits for the level to reach the other instances (a promise within the promise: flattened).
    return whenSettled(filtered, (outcome): FastifyReply | Promise<FastifyReply> => {
      if (outcome === CANCELLED) return stream.endWithoutResponse()
      if (outcome.ok && outcome.result.resultType === 'input_required') {
        // Only 2026-07-28 has input_required results; legacy handlers ask through ctx.elicit() and friends.
        request.log.error({ method }, `MCP handler ${faultSubject(entry, params)} returned an input_required result to a legacy request`)
        return stream.respond(200, errorResponse(id, ErrorCode.InternalError, 'Internal error'))
      }
      let body: string | Buffer
      try {
        body = outcome.ok ? resultResponse(id, outcome.result) : errorResponse(id, outcome.code, outcome.message, outcome.data)
      } catch (err) {
        // Output JSON cannot carry (a BigInt, a cycle, a throwing getter or toJSON): a server fault.
        request.log.error({ err, method }, `MCP handler ${faultSubject(entry, params)} output could not be serialised as JSON`)
        return stream.respond(200, internalErrorResponse(id))
      }
      if (outcome.ok && method === 'logging/setLevel') {
        return legacyLogLevel.set(request, params.level as LogLevel).then(
          () => stream.respond(200, body),
          (err: unknown) => {
            // The session ended while this was served (lib/endpoint/legacy-sessions.ts): said so, as resources/subscribe does.
            if (err instanceof McpError) return stream.respond(200, errorResponse(id, err.code, err.message))
            request.log.error({ err }, 'MCP logging/setLevel: the level could not be shared with the other instances')
            return stream.respond(200, errorResponse(id, ErrorCode.InternalError, 'Internal error: the log level could not be applied on every instance'))
          })
      }
      return stream.respond(200, body)
    }) as FastifyReply | Promise<FastifyReply>
  }
}
