/** How the endpoint answers: JSON bodies (often prepared bytes), JSON-RPC errors, and 202 acknowledgements. */
import type { FastifyReply } from 'fastify'
import type { RequestId } from '../protocol/jsonrpc.js'
import { errorResponseBody } from './responses.js'

const JSON_TYPE = 'application/json; charset=utf-8'

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
  const scope = reply.request.mcpScope
  if (scope !== null && scope !== undefined) scope.errorType ??= String(code)
  return sendJson(reply, status, errorResponseBody(id, code, message, data))
}

/** 202 Accepted with no body: how notifications (and stray responses) are acknowledged. */
export function sendAccepted (reply: FastifyReply): FastifyReply {
  return reply.code(202).send()
}
