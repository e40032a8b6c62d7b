/**
 * The endpoint as an OAuth 2.1 resource server (MCP authorization, RFC 6750,
 * RFC 9728): reads the bearer token, verifies it (a remembered verification
 * when the same token came before, so an authorized request stays cheap),
 * and says how to refuse a request: 401 with a `WWW-Authenticate` challenge
 * pointing at the metadata document, 403 `insufficient_scope` naming every
 * scope the operation needs, 503 when the token could not be checked at all.
 */
import type { FastifyRequest } from 'fastify'
import {
  type AuthInfo,
  expandScopes,
  InvalidTokenError,
  principalOf,
  scopesFromClaim,
  type VerifiedAccessToken,
  type VerifiedCaller,
  VerifierUnavailableError
} from './verified-token.js'
import type { ResolvedAuthorization } from './authorization-options.js'
import { bearerCandidate, EMPTY_BEARER, isB64Token } from './bearer-token.js'
import { bearerChallenge } from './challenge.js'
import { buildMetadata, metadataPath, metadataUrl, type ProtectedResourceMetadata } from './protected-resource-metadata.js'
import { TokenCache } from './token-cache.js'

/** How a request is refused: HTTP status, the `WWW-Authenticate` value, and the JSON-RPC error message. */
export interface AuthRejection {
  readonly status: 400 | 401 | 403 | 503
  readonly challenge: string | undefined
  readonly message: string
}

export type AuthVerdict = VerifiedCaller | AuthRejection

export function isRejection (verdict: AuthVerdict): verdict is AuthRejection {
  return (verdict as AuthRejection).status !== undefined
}

/** Verifies a token: the token's facts, or null/undefined for an invalid one. */
export type TokenVerifier = (token: string, request: FastifyRequest) =>
  VerifiedAccessToken | null | undefined | Promise<VerifiedAccessToken | null | undefined>

/** Per connection: the last Authorization header verified on it, and what it verified to. */
const LAST_TOKEN = Symbol('fastify-mcp-capabilities.last-token')

interface ConnectionMemo {
  readonly header: string
  readonly caller: VerifiedCaller
  readonly until: number
  readonly server: ResourceServer
  readonly generation: number
}

type MemoSocket = object & { [LAST_TOKEN]?: ConnectionMemo }

/** Seconds a client is asked to wait after a 503. */
export const RETRY_AFTER_SEC = 5

function sameAudience (audience: string | readonly string[], accepted: ReadonlySet<string>): boolean {
  return typeof audience === 'string' ? accepted.has(audience) : audience.some((a) => accepted.has(a))
}

export class ResourceServer {
  readonly metadata: Readonly<ProtectedResourceMetadata>
  /** The document as served, serialised once. */
  readonly metadataJson: string
  /** Absolute URL of the document (`resource_metadata` in challenges). */
  readonly metadataUrl: string
  /** Paths the document is served at on the resource's origin. */
  readonly metadataPaths: readonly string[]
  readonly settings: ResolvedAuthorization

  readonly #verify: TokenVerifier
  readonly #cache: TokenCache<VerifiedCaller>
  readonly #pending = new Map<string, Promise<AuthVerdict>>()
  readonly #audiences: ReadonlySet<string>
  readonly #missing: AuthRejection
  readonly #insufficientRequired: AuthRejection | undefined
  readonly #hint: readonly string[]
  readonly #now: () => number
  /** Bumped by clearCache(), so connection memos made before it are ignored. */
  #generation = 0

  constructor (settings: ResolvedAuthorization, verify: TokenVerifier, now: () => number = Date.now) {
    this.settings = settings
    this.#verify = verify
    this.#cache = new TokenCache(settings.tokenCache.maxEntries, settings.tokenCache.maxTtlMs, now)
    this.#now = now
    this.metadata = Object.freeze(buildMetadata(settings))
    this.metadataJson = JSON.stringify(this.metadata)
    this.metadataUrl = metadataUrl(settings.resourceUrl)
    // RFC 9728 section 3.1; for a bare origin that is the root document, MCP clients' fallback.
    this.metadataPaths = Object.freeze([metadataPath(settings.resourceUrl)])
    const bare = settings.resource.replace(/\/+$/, '')
    this.#audiences = new Set([settings.resource, bare, bare + '/'])
    // The scopes a client should ask for first: what every request needs, else what the metadata lists.
    this.#hint = settings.requiredScopes.length > 0 ? settings.requiredScopes : settings.scopesSupported
    this.#missing = Object.freeze({
      status: 401,
      challenge: bearerChallenge({ resourceMetadata: this.metadataUrl, scopes: this.#hint }),
      message: 'Unauthorized: this endpoint needs an OAuth access token (Authorization: Bearer <token>)'
    })
    this.#insufficientRequired = settings.requiredScopes.length > 0 ? this.insufficientScope(settings.requiredScopes) : undefined
  }

  /** Who is calling: a verified caller, or how to refuse. Synchronous when the token was verified before. */
  authenticate (request: FastifyRequest): AuthVerdict | Promise<AuthVerdict> {
    const header = request.headers.authorization
    // A keep-alive connection repeats its header: comparing the string is cheaper than hashing it for the cache.
    const socket = request.raw?.socket as MemoSocket | undefined | null
    const memo = socket?.[LAST_TOKEN]
    if (memo !== undefined && memo.header === header && memo.server === this && memo.generation === this.#generation && this.#now() < memo.until) {
      return this.#withRequired(memo.caller)
    }
    const token = bearerCandidate(header)
    if (token === undefined) return this.#missing
    if (token === EMPTY_BEARER) return this.#invalid('The access token is empty')
    // Only well-formed tokens are ever cached, so a hit needs no syntax check.
    const known = this.#cache.get(token)
    if (known !== undefined) {
      this.#remember(socket, header as string, known)
      return this.#withRequired(known)
    }
    if (!isB64Token(token)) return this.#malformed()
    let pending: Promise<AuthVerdict> | undefined
    if (this.settings.tokenCache.maxEntries === 0) {
      // `tokenCache: false`: every request is verified on its own, so a verifier that
      // looks at the request (a DPoP proof, a client certificate) sees each one.
      pending = this.#verifyNew(token, request)
    } else if ((pending = this.#pending.get(token)) === undefined) {
      // One verification per token at a time: a burst of requests with a new token shares it
      // (the cache's contract: a verdict depends on the token alone).
      pending = this.#verifyNew(token, request).finally(() => this.#pending.delete(token))
      this.#pending.set(token, pending)
    }
    return pending.then((verdict) => {
      if (isRejection(verdict)) return verdict
      this.#remember(socket, header as string, verdict)
      return this.#withRequired(verdict)
    })
  }

  /** The connection's last verified header, kept while the cache would keep the token. */
  #remember (socket: MemoSocket | undefined | null, header: string, caller: VerifiedCaller): void {
    if (socket === undefined || socket === null || this.settings.tokenCache.maxEntries === 0) return
    const until = Math.min(this.#now() + this.settings.tokenCache.maxTtlMs, caller.expiresAtMs ?? Number.POSITIVE_INFINITY)
    socket[LAST_TOKEN] = { header, caller, until, server: this, generation: this.#generation }
  }

  /** Every scope an operation needs: the endpoint's, the method's and the handler's, without repeats. */
  scopesNeeded (method: string, handlerScopes: readonly string[] | undefined): readonly string[] {
    const byMethod = this.settings.methodScopes.get(method)
    const required = this.settings.requiredScopes
    if (byMethod === undefined && (handlerScopes === undefined || handlerScopes.length === 0)) return required
    return [...new Set([...required, ...(byMethod ?? []), ...(handlerScopes ?? [])])]
  }

  /** The 403 for a caller lacking any of `needed`, or undefined when it has them all. */
  checkScopes (caller: VerifiedCaller, needed: readonly string[]): AuthRejection | undefined {
    for (const scope of needed) {
      if (!caller.scopes.has(scope)) return this.insufficientScope(needed)
    }
    return undefined
  }

  /** True when the caller holds every scope in `needed`. */
  allows (caller: VerifiedCaller, needed: readonly string[] | undefined): boolean {
    return needed === undefined || needed.every((scope) => caller.scopes.has(scope))
  }

  insufficientScope (needed: readonly string[]): AuthRejection {
    return {
      status: 403,
      challenge: bearerChallenge({
        resourceMetadata: this.metadataUrl,
        error: 'insufficient_scope',
        description: 'This operation needs the scopes ' + needed.join(' '),
        scopes: needed
      }),
      message: 'Forbidden: insufficient scope (needs ' + needed.join(' ') + ')'
    }
  }

  /** Forget every remembered verification (e.g. after keys were revoked). */
  clearCache (): void {
    this.#cache.clear()
    this.#generation++
  }

  #withRequired (caller: VerifiedCaller): AuthVerdict {
    if (this.#insufficientRequired === undefined) return caller
    return this.checkScopes(caller, this.settings.requiredScopes) === undefined ? caller : this.#insufficientRequired
  }

  #malformed (): AuthRejection {
    return {
      status: 400,
      challenge: bearerChallenge({ resourceMetadata: this.metadataUrl, error: 'invalid_request', description: 'Malformed Bearer credential', scopes: this.#hint }),
      message: 'Bad Request: the Authorization header is not a well-formed Bearer credential'
    }
  }

  #invalid (description: string): AuthRejection {
    return {
      status: 401,
      challenge: bearerChallenge({ resourceMetadata: this.metadataUrl, error: 'invalid_token', description, scopes: this.#hint }),
      message: 'Unauthorized: ' + description
    }
  }

  async #verifyNew (token: string, request: FastifyRequest): Promise<AuthVerdict> {
    let raw: VerifiedAccessToken | null | undefined
    try {
      raw = await this.#verify(token, request)
    } catch (err) {
      if (err instanceof InvalidTokenError) return this.#invalid(err.message)
      // Not the token's fault: the verifier or what it depends on failed. Logged without the token.
      request.log.error({ err }, err instanceof VerifierUnavailableError ? 'MCP access token could not be verified' : 'MCP access token verifier failed')
      return {
        status: 503,
        challenge: undefined,
        message: 'Service Unavailable: the access token could not be verified; try again later'
      }
    }
    if (raw === null || raw === undefined || (raw as unknown) === false) return this.#invalid('The access token is invalid')
    if (typeof raw !== 'object') {
      request.log.error({ returned: typeof raw }, 'MCP verifyAccessToken returned neither an object nor null')
      return this.#invalid('The access token is invalid')
    }
    if (raw.audience !== undefined && !sameAudience(raw.audience, this.#audiences)) {
      return this.#invalid('The access token was not issued for this resource')
    }
    const expiresAt = typeof raw.expiresAt === 'number' && Number.isFinite(raw.expiresAt) ? raw.expiresAt : undefined
    const expiresAtMs = expiresAt === undefined ? undefined : expiresAt * 1000
    // The JWT verifier already allowed for clock skew; a custom verifier's expiry is taken as given.
    const leewayMs = this.settings.verifier.kind === 'jwt' ? this.settings.verifier.settings.clockToleranceSec * 1000 : 0
    if (expiresAtMs !== undefined && expiresAtMs + leewayMs <= this.#now()) return this.#invalid('The access token expired')
    const scopes = expandScopes(scopesFromClaim(raw.scopes), this.settings.impliedScopes)
    const issuer = typeof raw.issuer === 'string' ? raw.issuer : undefined
    const subject = typeof raw.subject === 'string' ? raw.subject : undefined
    const clientId = typeof raw.clientId === 'string' ? raw.clientId : undefined
    const info: AuthInfo = {
      issuer,
      subject,
      clientId,
      scopes: Object.freeze([...scopes]),
      expiresAt,
      claims: Object.freeze({ ...(raw.claims ?? {}) }),
      ...(this.settings.exposeToken ? { token } : {})
    }
    const caller: VerifiedCaller = Object.freeze({
      info: Object.freeze(info),
      principal: principalOf(issuer, subject, clientId),
      scopes,
      expiresAtMs
    })
    this.#cache.set(token, caller, expiresAtMs)
    return caller
  }
}
