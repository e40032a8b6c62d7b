/**
 * What a handler learns about the caller of an authorized request
 * (`ctx.auth`), what a custom verifier returns, and the principal that owns
 * the caller's state: issuer and subject, or issuer and client id for a
 * token without a subject.
 */
import type { AuthInfo } from '../server-module/auth-info.js'

export type { AuthInfo }

/** What `verifyAccessToken(token, request)` returns for a valid token. */
export interface VerifiedAccessToken {
  issuer?: string
  subject?: string
  clientId?: string
  /** An array, or a space-separated string as in the `scope` claim. */
  scopes?: readonly string[] | string
  /** Seconds since the epoch; the token is refused (and never cached) past it. */
  expiresAt?: number
  /** When given, it must name this resource (or the request is refused as `invalid_token`). */
  audience?: string | readonly string[]
  claims?: Record<string, unknown>
}

/**
 * Thrown by a verifier for a token it refuses: answered 401 `invalid_token`
 * with this message as the `error_description`. Anything else a verifier
 * throws is logged and answered 503 (the verifier, not the token, failed).
 */
export class InvalidTokenError extends Error {
  constructor (message = 'The access token is invalid') {
    super(message)
    this.name = 'InvalidTokenError'
  }
}

/** A verifier that could not decide (authorization server or JWKS unreachable): 503, not 401. */
export class VerifierUnavailableError extends Error {
  constructor (message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'VerifierUnavailableError'
  }
}

/** One verified token with what the endpoint derives from it once. */
export interface VerifiedCaller {
  readonly info: AuthInfo
  /** The principal that owns tasks, request states and private cache entries; undefined when the token names nobody. */
  readonly principal: string | undefined
  readonly scopes: ReadonlySet<string>
  /** Expiry in ms since the epoch, or undefined. */
  readonly expiresAtMs: number | undefined
}

/** `sub <issuer> <subject>`, else `client <issuer> <client id>`: issuers are URLs, so the parts cannot run together. */
export function principalOf (issuer: string | undefined, subject: string | undefined, clientId: string | undefined): string | undefined {
  if (subject !== undefined && subject.length > 0) return 'sub ' + (issuer ?? '') + ' ' + subject
  if (clientId !== undefined && clientId.length > 0) return 'client ' + (issuer ?? '') + ' ' + clientId
  return undefined
}

/** Whether `caller` is a principal `principalOf` made (a verified token named it), not a digest of a header nor `anonymous`. */
export function isPrincipal (caller: string): boolean {
  return caller.startsWith('sub ') || caller.startsWith('client ')
}

/** The granted scopes with everything they imply (transitively), e.g. `notes:admin` → `notes:write`. */
export function expandScopes (granted: Iterable<string>, implied: ReadonlyMap<string, readonly string[]>): Set<string> {
  const out = new Set<string>()
  const queue = [...granted]
  // In grant order, each implied scope after the one implying it.
  for (let i = 0; i < queue.length; i++) {
    const scope = queue[i] as string
    if (out.has(scope)) continue
    out.add(scope)
    const more = implied.get(scope)
    if (more !== undefined) queue.push(...more)
  }
  return out
}

/** The scopes of a `scope` claim (space-separated) or an `scp` claim (array or string). */
export function scopesFromClaim (value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((s) => s.length > 0)
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === 'string' && s.length > 0)
  return []
}
