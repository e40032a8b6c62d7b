/**
 * Answers every error raised before a handler runs (body too large, wrong
 * content type, bad JSON) with a JSON-RPC error body and the right HTTP
 * status, never a 500 for something the client sent.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { JsonRpcHttpError } from './body-parser.js'
import { sendError } from '../response/reply.js'
import { ErrorCode } from '../protocol/mcp-error.js'

export function endpointErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof JsonRpcHttpError) {
    return sendError(reply, error.statusCode, undefined, error.rpcCode, error.message)
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      if (error.statusCode === 415) {
        return sendError(reply, 415, undefined, ErrorCode.InvalidRequest, 'Unsupported Media Type: the body must be application/json')
      }
      break
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return sendError(reply, 413, undefined, ErrorCode.InvalidRequest, 'Request body is too large')
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return sendError(reply, 400, undefined, ErrorCode.ParseError, 'Parse error: empty body')
  }
  const status = error.statusCode
  if (status !== undefined && status >= 400 && status < 500) {
    return sendError(reply, status, undefined, ErrorCode.InvalidRequest, `Bad Request: ${error.message}`)
  }
  request.log.error({ err: error }, 'MCP endpoint failed')
  return sendError(reply, 500, undefined, ErrorCode.InternalError, 'Internal error')
}
