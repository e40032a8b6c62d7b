/**
 * Who is calling: the one identity that owns caller-bound state (tasks,
 * `requestState`, private cache entries). The authenticated principal when
 * authorization set one on the request; otherwise a digest of the
 * `Authorization` header, so that state never crosses credentials; otherwise
 * `'anonymous'`.
 */
import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'

const CALLER = Symbol('fastify-mcp-capabilities.caller')

type WithCaller = FastifyRequest & { [CALLER]?: string }

/** Records the authenticated principal of this request (set once, by the authorization hook). */
export function setCaller (request: FastifyRequest, principal: string): void {
  (request as WithCaller)[CALLER] = principal
}

/** The identity that owns this request's state. */
export function callerOf (request: FastifyRequest): string {
  const principal = (request as WithCaller)[CALLER]
  if (principal !== undefined) return principal
  const value = request.headers.authorization
  if (typeof value !== 'string' || value.length === 0) return 'anonymous'
  return 'sha256:' + createHash('sha256').update(value).digest('base64url')
}
