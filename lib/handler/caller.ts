/**
 * Who is calling: the one identity that owns caller-bound state (tasks,
 * `requestState`, private cache entries, legacy answers). The authenticated
 * principal when authorization verified one; otherwise a digest of the
 * `Authorization` header, so that state never crosses credentials; otherwise
 * `'anonymous'`. Computed once per request and kept in a private slot
 * declared with `decorateRequest`.
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { verifiedCallerOf } from '../auth/request-token.js'

const kCaller: unique symbol = Symbol('fastify-mcp-capabilities.caller')

type WithCaller = FastifyRequest & { [kCaller]?: string | null }

/** Declares the slot up front, so request objects keep one shape. */
export function declareCaller (fastify: FastifyInstance): void {
  fastify.decorateRequest(kCaller, null)
}

export function callerOf (request: FastifyRequest): string {
  return (request as WithCaller)[kCaller] ?? ((request as WithCaller)[kCaller] = identify(request))
}

function identify (request: FastifyRequest): string {
  const principal = verifiedCallerOf(request)?.principal
  if (principal !== undefined) return principal
  const value = request.headers.authorization
  if (typeof value !== 'string' || value.length === 0) return 'anonymous'
  return 'sha256:' + createHash('sha256').update(value).digest('base64url')
}
