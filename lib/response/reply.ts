/** How the endpoint answers: JSON bodies (often prepared bytes), JSON-RPC errors, and 202 acknowledgements. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { RequestSlot } from '../common/request-slot.js'
import type { RequestId } from '../protocol/jsonrpc.js'
import { errorResponseBody } from './responses.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * How the request failed, for its span and duration metric: the first
 * JSON-RPC error code it was answered with, or `tool_error`. A private
 * per-request slot (lib/common/request-slot.ts), empty while nothing failed.
 */
const errorTypeSlot = new RequestSlot<string>()

/** Notes how `request` failed, unless a failure was noted already. */
export function noteErrorType (request: FastifyRequest, type: string): void {
  if (errorTypeSlot.get(request) === undefined) errorTypeSlot.set(request, type)
}

/** The failure noted for `request`, if any. */
export function errorTypeOf (request: FastifyRequest): string | undefined {
  return errorTypeSlot.get(request)
}

export function sendJson (reply: FastifyReply, status: number, body: string | Buffer): FastifyReply {
  return reply.code(status).type(JSON_TYPE).send(body)
}

export function sendError (
  reply: FastifyReply,
  status: number,
  id: RequestId | undefined,
  code: number,
  message: string,
  data?: unknown
): FastifyReply {
  // The request's span and duration metric name the first error it was answered with.
  noteErrorType(reply.request, String(code))
  return sendJson(reply, status, errorResponseBody(id, code, message, data))
}

/** 202 Accepted with no body: how notifications (and stray responses) are acknowledged. */
export function sendAccepted (reply: FastifyReply): FastifyReply {
  return reply.code(202).send()
}
