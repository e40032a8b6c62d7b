/** How the endpoint answers: JSON bodies (often prepared bytes), JSON-RPC errors, and 202 acknowledgements. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RequestId } from '../protocol/jsonrpc.js'
import { errorResponseBody } from './responses.js'

const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * How the request failed, for its span and duration metric: the first
 * JSON-RPC error code it was answered with, or `tool_error`. A private
 * per-request slot, declared with `decorateRequest`; null while nothing failed.
 */
const kErrorType: unique symbol = Symbol('fastify-mcp-capabilities.errorType')

type WithErrorType = FastifyRequest & { [kErrorType]?: string | null }

/** Declares the slot up front, so request objects keep one shape. */
export function declareErrorType (fastify: FastifyInstance): void {
  fastify.decorateRequest(kErrorType, null)
}

/** Notes how `request` failed, unless a failure was noted already. */
export function noteErrorType (request: FastifyRequest, type: string): void {
  (request as WithErrorType)[kErrorType] ??= type
}

/** The failure noted for `request`, if any. */
export function errorTypeOf (request: FastifyRequest): string | undefined {
  return (request as WithErrorType)[kErrorType] ?? undefined
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
