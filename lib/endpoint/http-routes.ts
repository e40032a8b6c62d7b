/**
 * The endpoint's HTTP routes: POST at the endpoint path carries JSON-RPC
 * messages to the dispatcher; GET opens the legacy era's standalone stream
 * (lib/endpoint/standalone-stream.ts); HEAD, DELETE, PUT and PATCH answer 405. Every
 * route checks the request's source (Origin, Host) and, with authorization,
 * its token before the body is read, and never logs the Authorization header.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { declareRequestSlots } from '../common/request-slot.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { sendError } from '../response/reply.js'
import type { EndpointAuthorization } from './authorization.js'
import { installJsonParser } from './body-parser.js'
import type { PostHandler } from './dispatcher.js'
import type { GetHandler } from './standalone-stream.js'
import { endpointErrorHandler } from './error-handler.js'
import { redactingLoggerFactory } from './log-redaction.js'
import { checkRequestSource, type SecurityPolicy } from './security.js'

export interface EndpointRoutes {
  readonly path: string
  /** A `prefix` given to `register` (fastify-plugin skips encapsulation, so it is applied here). */
  readonly prefix: string | undefined
  readonly bodyLimit: number
  readonly policy: SecurityPolicy
  readonly auth: EndpointAuthorization | undefined
  readonly handlePost: PostHandler
  readonly handleGet: GetHandler
  /** With sessions: DELETE ends one (lib/endpoint/legacy-sessions.ts). */
  readonly handleDelete?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>
}

async function methodNotAllowed (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  reply.header('allow', 'GET, POST')
  return sendError(reply, 405, undefined, ErrorCode.InvalidRequest, 'Method Not Allowed: send JSON-RPC messages with POST, open a stream with GET')
}

export async function mountEndpoint (fastify: FastifyInstance, routes: EndpointRoutes): Promise<void> {
  // The per-request private slots, each owned by one module, all in one record (lib/common/request-slot.ts).
  declareRequestSlots(fastify)
  const { auth, policy } = routes
  // A callback hook: no promise per request on the hot path.
  function guard (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const verdict = checkRequestSource(request, policy)
    if (verdict === 'ok') {
      done()
      return
    }
    // Answering from the hook without calling done() ends the request here.
    sendError(reply, 403, undefined, ErrorCode.InvalidRequest,
      verdict === 'origin' ? 'Forbidden: Origin not allowed' : 'Forbidden: Host not allowed')
  }

  // What the endpoint's routes log never shows the Authorization header.
  const loggerFactory = redactingLoggerFactory(fastify)
  const childLoggerFactory = loggerFactory === undefined ? {} : { childLoggerFactory: loggerFactory }
  // The source check first (cheapest), then the token, both before the body is read.
  const onRequest = auth === undefined ? guard : [guard, auth.authenticate]
  auth?.serveMetadata(fastify, loggerFactory)

  await fastify.register(async function mcpEndpoint (child: FastifyInstance) {
    installJsonParser(child, routes.bodyLimit)
    child.setErrorHandler(endpointErrorHandler)
    child.route({ method: 'POST', url: routes.path, onRequest, ...childLoggerFactory, handler: routes.handlePost })
    child.route({ method: 'GET', url: routes.path, exposeHeadRoute: false, onRequest, ...childLoggerFactory, handler: routes.handleGet })
    if (routes.handleDelete !== undefined) child.route({ method: 'DELETE', url: routes.path, onRequest, ...childLoggerFactory, handler: routes.handleDelete })
    child.route({ method: routes.handleDelete === undefined ? ['HEAD', 'DELETE', 'PUT', 'PATCH'] : ['HEAD', 'PUT', 'PATCH'], url: routes.path, exposeHeadRoute: false, onRequest, ...childLoggerFactory, handler: methodNotAllowed })
  }, routes.prefix === undefined ? {} : { prefix: routes.prefix })
}
