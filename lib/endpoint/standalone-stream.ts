/**
 * `GET` on the endpoint: the legacy era's standalone stream
 * (lib/streams/legacy-stream.ts), for the caller that opens it. The route's
 * onRequest hooks have checked Origin, Host and (with authorization) the
 * token, as on POST; a stream opened with a token ends when the token
 * expires, as a listen stream does. A deployment that serves no legacy
 * client answers 405, the answer clients read as "no stream here".
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../handler/caller.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { sendError } from '../response/reply.js'
import { createLegacyStreamResponder, type LegacyStreamOwner } from '../streams/legacy-stream.js'
import type { EndpointAuthorization } from './authorization.js'
import type { EndpointState } from './state.js'

export type GetHandler = (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>

export function createStandaloneStream (state: EndpointState, auth: EndpointAuthorization | undefined): GetHandler {
  const open = createLegacyStreamResponder(state.subscriptions, state.capabilities.legacy)
  return function handleGet (request, reply) {
    if (!state.serveLegacy) {
      reply.header('allow', 'POST')
      return sendError(reply, 405, undefined, ErrorCode.InvalidRequest, 'Method Not Allowed: send JSON-RPC messages with POST')
    }
    const sessions = state.sessions
    if (sessions === undefined || request.headers['mcp-session-id'] === undefined) return opened(request, reply, { limitKey: callerOf(request) })
    // A stream of a session: the session must be this caller's (else 404), and hears its subscriptions.
    return sessions.streamOwner(request, reply).then((owner) => owner === undefined ? reply : opened(request, reply, owner))
  }

  function opened (request: FastifyRequest, reply: FastifyReply, owner: LegacyStreamOwner): FastifyReply {
    const answer = open(request, reply, owner)
    if (auth !== undefined) auth.endAtExpiry(request, reply)
    return answer
  }
}
