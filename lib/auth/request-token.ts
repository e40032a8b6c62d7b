/**
 * The verified token of one request: a private per-request slot
 * (lib/common/request-slot.ts), written once by authorization's `onRequest`
 * hook and read by whoever needs the caller (`callerOf`, `ctx.auth`, scope
 * checks, list filtering).
 */
import type { FastifyRequest } from 'fastify'
import { RequestSlot } from '../common/request-slot.js'
import type { AuthInfo } from '../server-module/auth-info.js'
import type { VerifiedCaller } from './verified-token.js'

const verifiedSlot = new RequestSlot<VerifiedCaller>()

/** Records the token authorization verified for `request`. */
export function setVerifiedCaller (request: FastifyRequest, verified: VerifiedCaller): void {
  verifiedSlot.set(request, verified)
}

/** The verified caller of an authorized request; undefined without authorization. */
export function verifiedCallerOf (request: FastifyRequest): VerifiedCaller | undefined {
  return verifiedSlot.get(request)
}

/** The verified token of an authorized request (in handlers: `ctx.auth`), undefined without authorization. */
export function authInfoOf (request: FastifyRequest): AuthInfo | undefined {
  return verifiedSlot.get(request)?.info
}
