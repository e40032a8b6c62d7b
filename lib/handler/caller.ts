/**
 * Who is calling: the one identity that owns caller-bound state (tasks,
 * `requestState`, private cache entries, legacy answers). The authenticated
 * principal when authorization verified one; otherwise a digest of the
 * `Authorization` header, so that state never crosses credentials; otherwise
 * `'anonymous'`. A digest is computed once per request and kept in a
 * private per-request slot (lib/common/request-slot.ts); the other answers
 * cost two reads to find again, so nothing is kept for them (keeping one
 * would make the request's slot record, on every legacy `tools/call`).
 */
import { createHash } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { RequestSlot } from '../common/request-slot.js'
import { verifiedCallerOf } from '../auth/request-token.js'

const callerSlot = new RequestSlot<string>()

export function callerOf (request: FastifyRequest): string {
  const principal = verifiedCallerOf(request)?.principal
  if (principal !== undefined) return principal
  const value = request.headers.authorization
  if (typeof value !== 'string' || value.length === 0) return 'anonymous'
  let digest = callerSlot.get(request)
  if (digest === undefined) callerSlot.set(request, digest = 'sha256:' + createHash('sha256').update(value).digest('base64url'))
  return digest
}
