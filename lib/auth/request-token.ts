/**
 * The verified token of one request: a private per-request slot, declared
 * with `decorateRequest` (as Fastify core declares its own symbols), written
 * once by authorization's `onRequest` hook and read by whoever needs the
 * caller (`callerOf`, `ctx.auth`, scope checks, list filtering).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { AuthInfo } from '../server-module/auth-info.js'
import type { VerifiedCaller } from './verified-token.js'

const kVerified: unique symbol = Symbol('fastify-mcp-capabilities.verifiedCaller')

type WithToken = FastifyRequest & { [kVerified]?: VerifiedCaller | null }

/** Declares the slot up front, so request objects keep one shape. */
export function declareRequestToken (fastify: FastifyInstance): void {
  fastify.decorateRequest(kVerified, null)
}

/** Records the token authorization verified for `request`. */
export function setVerifiedCaller (request: FastifyRequest, verified: VerifiedCaller): void {
  (request as WithToken)[kVerified] = verified
}

/** The verified caller of an authorized request; undefined without authorization. */
export function verifiedCallerOf (request: FastifyRequest): VerifiedCaller | undefined {
  return (request as WithToken)[kVerified] ?? undefined
}

/** The verified token of an authorized request (in handlers: `ctx.auth`), undefined without authorization. */
export function authInfoOf (request: FastifyRequest): AuthInfo | undefined {
  return (request as WithToken)[kVerified]?.info
}
