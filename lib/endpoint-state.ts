/**
 * Everything the endpoint computes once at registration: the capability
 * objects of both eras, the prepared initialize and discover results, and the
 * helpers both eras use to answer.
 */
import type { FastifyReply } from 'fastify'
import { buildCapabilities, type LegacyServerCapabilities, type ModernServerCapabilities } from './capabilities.js'
import type { CapabilityName } from './methods.js'
import type { ResolvedOptions } from './options.js'
import { errorResponseBody } from './responses.js'
import type { RequestId } from './jsonrpc.js'

export interface EndpointState {
  readonly options: ResolvedOptions
  readonly serveLegacy: boolean
  readonly serveModern: boolean
  readonly capabilities: {
    readonly legacy: LegacyServerCapabilities
    readonly modern: ModernServerCapabilities
  }
}

export function createEndpointState (options: ResolvedOptions): EndpointState {
  // Both shapes are built (and checked) whatever the era, so a module that
  // could not be served in one era fails registration rather than a request.
  const legacy = buildCapabilities(options.server, { era: 'legacy' }) as LegacyServerCapabilities
  const modern = buildCapabilities(options.server, { era: 'modern', tasks: options.tasks }) as ModernServerCapabilities
  return Object.freeze({
    options,
    serveLegacy: options.era !== 'modern',
    serveModern: options.era !== 'legacy',
    capabilities: Object.freeze({ legacy, modern })
  })
}

export function isAdvertised (capabilities: LegacyServerCapabilities | ModernServerCapabilities, capability: CapabilityName): boolean {
  if (capability === 'resources.subscribe') return capabilities.resources?.subscribe === true
  return capabilities[capability] !== undefined
}

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
  return sendJson(reply, status, errorResponseBody(id, code, message, data))
}

/** 202 Accepted with no body: how notifications (and stray responses) are acknowledged. */
export function sendAccepted (reply: FastifyReply): FastifyReply {
  return reply.code(202).send()
}
