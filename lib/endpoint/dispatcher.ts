/**
 * The JSON-RPC dispatcher: what answers a POSTed message. An invalid
 * message is refused; a client's answer to a legacy server-to-client
 * request settles the request waiting here, or is forwarded to the instance
 * that waits; a notification is accepted (`notifications/cancelled` stops the
 * caller's own request with that id); a request passes the scope check
 * (with authorization) and goes to its era: modern when its `_meta` names a
 * protocol version, else legacy. Each era finds what serves the method in
 * the method table (lib/protocol/methods.ts).
 *
 * Not async, and returns only the promise of a handler still running: a
 * request answered synchronously (discover, initialize, every rejection)
 * costs no promise. A fault of the endpoint's own is logged and answered
 * -32603 with the id, never a bare 500.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../handler/caller.js'
import { cancelNotified } from '../handler/in-flight.js'
import { classifyMessage, type JsonObject, type JsonRpcMessage, type RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { META_PROTOCOL_VERSION, namesProtocolVersion } from '../protocol/meta.js'
import { isModernVersion } from '../protocol/versions.js'
import { sendAccepted, sendError } from '../response/reply.js'
import type { EndpointAuthorization } from './authorization.js'
import type { EndpointState } from './state.js'

export type PostHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined

/** A JSON-RPC request, as the dispatcher hands it to an era. */
export type RequestMessage = Extract<JsonRpcMessage, { kind: 'request' }>

/** What answers the requests of one era (lib/endpoint/legacy-era.ts, lib/endpoint/modern-era.ts). */
export type EraHandler = (message: RequestMessage, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | FastifyReply

export interface EraHandlers {
  readonly legacy: EraHandler
  readonly modern: EraHandler
}

/** A request is modern when its `_meta` names a protocol version (docs/protocol.md). */
export function isModernRequest (message: JsonRpcMessage): boolean {
  if (message.kind !== 'request' && message.kind !== 'notification') return false
  return namesProtocolVersion(message.meta)
}

export function createDispatcher (state: EndpointState, auth: EndpointAuthorization | undefined, eras: EraHandlers): PostHandler {
  const { legacy: handleLegacy, modern: handleModern } = eras
  const { pending, parts } = state

  function dispatch (message: JsonRpcMessage, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    let denied: FastifyReply | undefined
    if (message.kind === 'invalid') return sendError(reply, 400, message.id, message.code, message.message)
    if (message.kind === 'response') {
      // A client's answer to a legacy server-to-client request: waited for here, or forwarded to the instance that waits.
      return pending.settle(request.body, callerOf(request)) ? sendAccepted(reply) : forwardAnswer(request, reply)
    }
    if (message.kind === 'notification') {
      // The caller's own legacy request with that id stops; anyone else's is out of reach.
      if (message.method === 'notifications/cancelled') cancelNotified(state.inFlight, callerOf(request), message.params, request.log)
      return sendAccepted(reply)
    }
    if (auth !== undefined && (denied = auth.checkScopes(request, reply, message.id, message.method, message.params)) !== undefined) return denied
    if (isModernRequest(message)) return handleModern(message, request, reply)
    if (state.serveModern && isModernVersion(request.headers['mcp-protocol-version'])) {
      // The header says modern but the body has no _meta version: a modern request missing its metadata.
      return sendError(reply, 400, message.id, ErrorCode.InvalidParams, `Invalid params: _meta must carry "${META_PROTOCOL_VERSION}"`)
    }
    return handleLegacy(message, request, reply)
  }

  /** An answer for no request of this instance: to the answer router (an unknown id is acknowledged all the same). */
  function forwardAnswer (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return parts.router.forward(request.body as JsonObject, callerOf(request)).then(
      () => sendAccepted(reply),
      (err: unknown) => {
        request.log.error({ err }, 'MCP answer could not be forwarded to the instance waiting for it')
        // Not accepted: the client may send it again.
        return sendError(reply, 503, undefined, ErrorCode.InternalError, 'Service unavailable: the answer could not be delivered; send it again')
      })
  }

  /** Last line of defence: a fault of the endpoint's own is logged and answered -32603 with the id, never a bare 500. */
  function fault (err: unknown, id: RequestId | undefined, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    request.log.error({ err }, 'MCP endpoint failed while answering')
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy()
      return reply
    }
    return sendError(reply, 200, id, ErrorCode.InternalError, 'Internal error')
  }

  return function handlePost (request, reply) {
    const message = classifyMessage(request.body)
    // Hooks and telemetry, when any: around every request (lib/endpoint/operations.ts).
    const around = state.operations.around
    if (around === undefined || message.kind !== 'request') return serve(message, request, reply)
    try {
      return around(message, request, reply, serve, isModernRequest)?.catch((err: unknown) => fault(err, message.id, request, reply))
    } catch (err) {
      fault(err, message.id, request, reply)
      return undefined
    }
  }

  function serve (message: JsonRpcMessage, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined {
    const id = message.kind === 'request' ? message.id : undefined
    try {
      const answer = dispatch(message, request, reply)
      return answer instanceof Promise ? answer.catch((err: unknown) => fault(err, id, request, reply)) : undefined
    } catch (err) {
      fault(err, id, request, reply)
      return undefined
    }
  }
}
