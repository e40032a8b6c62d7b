/**
 * Built-in access-token verification for JWTs (RFC 9068 style) with `jose`:
 * signature against the issuer's JWKS (found through its metadata, fetched
 * with a size cap, cached, refetched when a token names an unknown `kid`,
 * and not fetched again for a pause after a failure), issuer,
 * audience (this resource), expiry (required) and not-before with a small
 * clock tolerance, and an allow-list of algorithms: asymmetric only, so
 * `alg: none` and an HMAC "signed" with a public key never pass.
 *
 * `jose` is an optional peer dependency, loaded only when this verifier is
 * used (see plugin registration).
 */
import type { JWTVerifyGetKey } from 'jose'
import { InvalidTokenError, scopesFromClaim, type VerifiedAccessToken, VerifierUnavailableError } from './verified-token.js'
import { discoverJwksUri } from './issuer-metadata.js'
import type { JwtSettings } from './jwt-settings.js'
import { boundedFetch, MAX_KEY_SET_BYTES } from './bounded-fetch.js'

export type { JwtSettings } from './jwt-settings.js'

type Jose = typeof import('jose')
type RemoteKeySet = ReturnType<Jose['createRemoteJWKSet']>
type LocalKeySet = ReturnType<Jose['createLocalJWKSet']>
/** What `jwtVerify` takes: the key for a token's header. */
type KeySet = JWTVerifyGetKey

/**
 * After a failed discovery or key-set fetch, requests get the same failure
 * for this long before it is tried again: an outage costs one fetch per
 * pause, not one per request (any token naming the issuer would do).
 */
export const RETRY_AFTER_FAILURE_MS = 5000
/** Keep a fetched JWKS this long at most. */
const JWKS_MAX_AGE_MS = 10 * 60_000

/** What a `jose` failure means for the client: its token is bad (401) or we could not check it (503). */
function translate (err: unknown): Error {
  const code = (err as { code?: unknown } | null)?.code
  switch (code) {
    case 'ERR_JWT_EXPIRED': return new InvalidTokenError('The access token expired')
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (err as { claim?: unknown }).claim
      if (claim === 'aud') return new InvalidTokenError('The access token was not issued for this resource')
      if (claim === 'nbf') return new InvalidTokenError('The access token is not valid yet')
      if (claim === 'iss') return new InvalidTokenError('The access token was issued by another authorization server')
      if (claim === 'exp') return new InvalidTokenError('The access token has no expiry')
      return new InvalidTokenError('The access token failed a claim check')
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return new InvalidTokenError('The access token is signed with an algorithm this resource does not accept')
    case 'ERR_JWKS_NO_MATCHING_KEY': return new InvalidTokenError('The access token is signed with an unknown key')
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return new InvalidTokenError('The access token signature is invalid')
    case 'ERR_JWKS_TIMEOUT': return new VerifierUnavailableError('The JWKS did not arrive in time', { cause: err })
    case 'ERR_JWKS_INVALID': return new VerifierUnavailableError('The JWKS is invalid', { cause: err })
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return new InvalidTokenError('The access token is invalid')
    default:
      // A JWKS fetch that failed (network, non-200) or anything unexpected: not the token's fault.
      return new VerifierUnavailableError('The access token could not be verified', { cause: err })
  }
}

function claimString (payload: Record<string, unknown>, name: string): string | undefined {
  const value = payload[name]
  return typeof value === 'string' ? value : undefined
}

/** `jose`'s code for a key set that has no key the token names. */
const NO_MATCHING_KEY = 'ERR_JWKS_NO_MATCHING_KEY'

export function createJwtVerifier (jose: Jose, settings: JwtSettings, fetchFn: typeof globalThis.fetch = globalThis.fetch, now: () => number = Date.now): (token: string) => Promise<VerifiedAccessToken> {
  const allowed = new Set(settings.algorithms)
  const keySets = new Map<string, { keys?: KeySet, pending?: Promise<KeySet>, failure?: Error, failedAt?: number }>()
  const fetchKeySet = boundedFetch(fetchFn, MAX_KEY_SET_BYTES)
  const fixed: KeySet | undefined = settings.jwks !== undefined
    ? jose.createLocalJWKSet(settings.jwks as Parameters<Jose['createLocalJWKSet']>[0])
    : settings.jwksUri !== undefined ? remote(settings.jwksUri) : undefined

  function remote (url: URL): KeySet {
    return pausedAfterFailure(url, jose.createRemoteJWKSet(url, {
      timeoutDuration: settings.fetchTimeoutMs,
      cooldownDuration: settings.jwksCooldownMs,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      [jose.customFetch]: fetchKeySet
    }))
  }

  /**
   * `jose`'s remote key set fetches again on every lookup while its fetch
   * fails. This one remembers the failure: for the pause, keys fetched
   * before still serve (while fresh), and a lookup that would need a fetch
   * gets the failure (503) without one.
   */
  function pausedAfterFailure (url: URL, keys: RemoteKeySet): KeySet {
    let failure: VerifierUnavailableError | undefined
    let failedAt = 0
    /** The keys `jose` still holds from its last good fetch, looked up without fetching during the pause. */
    let cached: LocalKeySet | undefined
    return async function keyFor (header, token) {
      if (failure !== undefined && now() - failedAt < RETRY_AFTER_FAILURE_MS) {
        if (cached === undefined || !keys.fresh) throw failure
        try {
          return await cached(header, token)
        } catch (err) {
          throw (err as { code?: unknown }).code === NO_MATCHING_KEY ? failure : err
        }
      }
      try {
        const key = await keys(header, token)
        failure = undefined
        return key
      } catch (err) {
        const reason = translate(err)
        if (reason instanceof VerifierUnavailableError) {
          failure = new VerifierUnavailableError(`The JWKS at ${url.href} could not be fetched`, { cause: err })
          failedAt = now()
          const jwks = keys.fresh ? keys.jwks() : undefined
          cached = jwks === undefined ? undefined : jose.createLocalJWKSet(jwks)
          throw failure
        }
        throw err
      }
    }
  }

  /** The issuer's key set, discovered once (one discovery at a time; a failure is retried after a pause). */
  function keySetFor (issuer: string): KeySet | Promise<KeySet> {
    if (fixed !== undefined) return fixed
    let slot = keySets.get(issuer)
    if (slot === undefined) keySets.set(issuer, slot = {})
    if (slot.keys !== undefined) return slot.keys
    if (slot.pending !== undefined) return slot.pending
    if (slot.failure !== undefined && now() - (slot.failedAt ?? 0) < RETRY_AFTER_FAILURE_MS) throw slot.failure
    const entry = slot
    entry.pending = discoverJwksUri(issuer, { fetch: fetchFn, timeoutMs: settings.fetchTimeoutMs }).then((uri) => {
      entry.keys = remote(uri)
      entry.pending = undefined
      entry.failure = undefined
      return entry.keys
    }, (err: unknown) => {
      entry.pending = undefined
      entry.failure = new VerifierUnavailableError(`Authorization server metadata unavailable for ${issuer}`, { cause: err })
      entry.failedAt = now()
      throw entry.failure
    })
    return entry.pending
  }

  return async function verifyJwt (token: string): Promise<VerifiedAccessToken> {
    let header: ReturnType<Jose['decodeProtectedHeader']>
    let unverified: ReturnType<Jose['decodeJwt']>
    try {
      header = jose.decodeProtectedHeader(token)
      unverified = jose.decodeJwt(token)
    } catch {
      throw new InvalidTokenError('The access token is not a JWT')
    }
    // Checked before any key is looked up: `none` and HMAC never reach the key set.
    if (typeof header.alg !== 'string' || !allowed.has(header.alg)) {
      throw new InvalidTokenError('The access token is signed with an algorithm this resource does not accept')
    }
    const issuer = unverified.iss
    if (typeof issuer !== 'string' || !settings.issuers.includes(issuer)) {
      throw new InvalidTokenError('The access token was issued by another authorization server')
    }
    let payload: Record<string, unknown>
    try {
      const keys = await keySetFor(issuer)
      const verified = await jose.jwtVerify(token, keys, {
        issuer,
        audience: [...settings.audiences],
        algorithms: [...settings.algorithms],
        clockTolerance: settings.clockToleranceSec,
        requiredClaims: ['exp'],
        ...(settings.typ !== undefined ? { typ: settings.typ } : {})
      })
      payload = verified.payload as Record<string, unknown>
    } catch (err) {
      if (err instanceof InvalidTokenError || err instanceof VerifierUnavailableError) throw err
      throw translate(err)
    }
    const scope = payload.scope !== undefined ? payload.scope : payload.scp
    return {
      issuer,
      subject: claimString(payload, 'sub'),
      clientId: claimString(payload, 'client_id') ?? claimString(payload, 'azp'),
      scopes: scopesFromClaim(scope),
      expiresAt: typeof payload.exp === 'number' ? payload.exp : undefined,
      claims: payload
    }
  }
}
