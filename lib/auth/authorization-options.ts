/**
 * The `authorization` option: what this endpoint is as an OAuth 2.1
 * resource server (its resource identifier, the authorization servers that
 * issue its tokens, its scopes) and how tokens are verified (built-in JWT
 * verification, or your own `verifyAccessToken`). Checked at registration
 * like every other option.
 */
import type { FastifyRequest } from 'fastify'
import type { VerifiedAccessToken } from './verified-token.js'
import { isScopeToken } from './challenge.js'
import { isSecureOrLoopback } from './secure-url.js'
import { ASYMMETRIC_ALGORITHMS, type JwtSettings } from './jwt-settings.js'
import { FST_MCP_INVALID_OPTION } from '../errors.js'
import { array, type At, boolean, check, custom, func, group, integer, isPlainObject, map, maybe, record, type SpecValue, string, toggle } from '../check/option-spec.js'

export const DEFAULT_CLOCK_TOLERANCE_SEC = 5
export const DEFAULT_TOKEN_CACHE_ENTRIES = 1000
export const DEFAULT_TOKEN_CACHE_TTL_MS = 5 * 60_000
export const DEFAULT_FETCH_TIMEOUT_MS = 5000
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000

/** Your own token check: the token's facts for a valid token; `null`/`undefined` (or throw `InvalidTokenError`) for an invalid one. */
export type AccessTokenVerifier = (token: string, request: FastifyRequest) =>
  VerifiedAccessToken | null | undefined | Promise<VerifiedAccessToken | null | undefined>

export interface JwtOptions {
  /** Accepted issuers (`iss`); default: `authorizationServers`. */
  issuers?: string[]
  /** Accepted audiences (`aud`); default: the resource, with and without a trailing slash. */
  audience?: string[]
  /** Accepted JWS algorithms; default: the asymmetric ones (RS*, PS*, ES*, EdDSA, Ed25519). HMAC and `none` are refused. */
  algorithms?: string[]
  /** Leeway for `exp` and `nbf` in seconds; default 5. */
  clockToleranceSec?: number
  /** The JWKS URL, instead of finding it in the issuer's metadata (one issuer only). */
  jwksUri?: string
  /** A fixed JWKS (`{ keys: [...] }`), instead of fetching one. */
  jwks?: { keys: object[] }
  /** Require this `typ` header, e.g. `at+jwt` (RFC 9068); default: not checked. */
  typ?: string
  /** Bound on each metadata and JWKS fetch in ms; default 5000. */
  fetchTimeoutMs?: number
  /** After a JWKS fetch, tokens with an unknown `kid` cause no new fetch for this long (ms); default 30000. */
  jwksCooldownMs?: number
}

export interface AuthorizationOptions {
  /** This endpoint's resource identifier (RFC 8707/9728): its absolute URL, e.g. `https://mcp.example.com/mcp`. Tokens must name it as their audience. */
  resource: string
  /** Issuer identifiers of the authorization servers that issue tokens for this resource. */
  authorizationServers: string[]
  /** Scopes listed in the metadata document (`scopes_supported`); default none. */
  scopesSupported?: string[]
  /** Scopes every request needs; default none (a valid token is enough). */
  requiredScopes?: string[]
  /** Scopes per JSON-RPC method, on top of `requiredScopes`, e.g. `{ 'tools/call': ['tools:call'] }`. */
  methodScopes?: Record<string, string[]>
  /** Scope hierarchy: a granted scope implies these (transitively), e.g. `{ 'notes:admin': ['notes:write'] }`. */
  impliedScopes?: Record<string, string[]>
  /** Your own verifier (opaque tokens, introspection); without it JWTs are verified with `jwt`'s settings. */
  verifyAccessToken?: AccessTokenVerifier
  /** Settings of the built-in JWT verification. */
  jwt?: JwtOptions
  /**
   * Verified tokens kept (never past their expiry); `false` verifies every request. Default: on for the
   * built-in JWT verification (`{ maxEntries: 1000, maxTtlMs: 300000 }`), off for your own `verifyAccessToken`
   * (it is handed the request; turn the cache on when its answer depends on the token alone).
   */
  tokenCache?: boolean | { maxEntries?: number, maxTtlMs?: number }
  /** List results (tools, prompts, resources) show a caller only what their scopes let them use; default `false`. */
  filterLists?: boolean
  /** Put the raw token in `ctx.auth.token`; default `false`. */
  exposeToken?: boolean
  /** Serve the metadata document; default `true` (set `false` to serve it yourself). */
  serveMetadata?: boolean
  /** `resource_name` of the metadata document. */
  resourceName?: string
  /** `resource_documentation` of the metadata document (a URL). */
  resourceDocumentation?: string
}

export type ResolvedVerifier =
  | { kind: 'custom', verify: AccessTokenVerifier }
  | { kind: 'jwt', settings: JwtSettings }

export interface ResolvedAuthorization {
  resource: string
  resourceUrl: URL
  authorizationServers: readonly string[]
  scopesSupported: readonly string[]
  requiredScopes: readonly string[]
  methodScopes: ReadonlyMap<string, readonly string[]>
  impliedScopes: ReadonlyMap<string, readonly string[]>
  verifier: ResolvedVerifier
  tokenCache: TokenCacheSettings
  filterLists: boolean
  exposeToken: boolean
  serveMetadata: boolean
  resourceName: string | undefined
  resourceDocumentation: string | undefined
}

/** A scope token (RFC 6749 §3.3): printable ASCII without spaces, quotes or backslashes. */
const SCOPE = custom('a scope token (printable ASCII, no spaces, quotes or backslashes)', (value, at) => {
  if (!isScopeToken(value)) at.error('expected a scope token (printable ASCII, no spaces, quotes or backslashes)')
  return value as string
}, true)
const SCOPES = map(array(SCOPE, { expects: 'an array of scope tokens (printable ASCII, no spaces, quotes or backslashes)' }), (list): readonly string[] => Object.freeze([...new Set(list ?? [])]))
/** Keys (methods, scopes) to lists of scopes; empty lists dropped. */
const SCOPE_MAP = map(record(SCOPES, 'an object whose values are arrays of scope tokens'), (value): ReadonlyMap<string, readonly string[]> =>
  new Map(Object.entries(value ?? {}).filter(([, list]) => list.length > 0)))

/** An issuer identifier (RFC 8414): https (plain http on loopback only), no query or fragment. */
const ISSUER = custom('an issuer URL', (value, at) => {
  if (typeof value !== 'string' || !URL.canParse(value)) at.error('expected an issuer URL')
  const url = new URL(value as string)
  if (!isSecureOrLoopback(url)) at.error(`"${value as string}" must use https (plain http only on loopback hosts)`)
  if (url.hash !== '' || url.search !== '') at.error(`"${value as string}" must have no query or fragment (RFC 8414)`)
  return value as string
}, true)

/** An absolute http(s) URL without fragment, query or user information (RFC 8707). */
const RESOURCE = custom('the endpoint\'s absolute URL, e.g. "https://mcp.example.com/mcp"', (value, at) => {
  if (typeof value !== 'string' || !URL.canParse(value)) at.error('expected the endpoint\'s absolute URL, e.g. "https://mcp.example.com/mcp"')
  const url = new URL(value as string)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') at.error('expected an http or https URL')
  if (url.hash !== '' || (value as string).includes('#')) at.error('a resource identifier has no fragment (RFC 8707)')
  if (url.search !== '' || (value as string).includes('?')) at.error('a resource identifier has no query (RFC 8707)')
  if (url.username !== '' || url.password !== '') at.error('a resource identifier has no user information')
  return { resource: value as string, resourceUrl: url }
}, true)

const ALGORITHM = custom('an asymmetric JWS algorithm name', (value, at) => {
  if (typeof value !== 'string') at.error('expected a JWS algorithm name')
  if (!ASYMMETRIC_ALGORITHMS.includes(value as string)) {
    at.error(`"${value as string}" is not accepted: only asymmetric algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}) can be checked against a public JWKS`)
  }
  return value as string
}, true)

const JWKS = custom('a JWKS object { keys: [...] } of public keys', (value, at) => {
  if (value === undefined) return undefined
  if (!isPlainObject(value) || !Array.isArray(value.keys) || !value.keys.every(isPlainObject)) at.error('expected a JWKS object { keys: [...] }')
  if (((value as { keys: Array<Record<string, unknown>> }).keys).some((k) => k.kty === 'oct' || 'd' in k)) {
    at.error('expected public keys only (no symmetric "oct" keys, no private parts)')
  }
  return structuredClone(value) as { keys: object[] }
})

const JWT = group({
  issuers: array(ISSUER, { nonEmpty: true, expects: 'a non-empty array of issuer URLs' }),
  audience: array(string({ nonEmpty: true, required: true }), { nonEmpty: true, expects: 'a non-empty array of strings' }),
  algorithms: array(ALGORITHM, { nonEmpty: true, expects: 'a non-empty array of JWS algorithm names' }),
  clockToleranceSec: integer({ min: 0, max: 300, unit: 'seconds', default: DEFAULT_CLOCK_TOLERANCE_SEC }),
  jwksUri: custom('an https URL (plain http only on loopback hosts)', (value, at) => {
    if (value === undefined) return undefined
    if (typeof value !== 'string' || !URL.canParse(value) || !isSecureOrLoopback(new URL(value))) at.error('expected an https URL (plain http only on loopback hosts)')
    return new URL(value as string)
  }),
  jwks: JWKS,
  typ: string({ nonEmpty: true, expects: 'a non-empty string such as "at+jwt"' }),
  fetchTimeoutMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_FETCH_TIMEOUT_MS }),
  jwksCooldownMs: integer({ min: 0, unit: 'milliseconds', default: DEFAULT_JWKS_COOLDOWN_MS })
}, {
  finish: (jwt, at) => {
    if (jwt.jwks !== undefined && jwt.jwksUri !== undefined) at.key('jwks').error('give jwks or jwksUri, not both')
    return jwt
  }
})

/** The built-in verifier's settings; issuers default to the authorization servers, audiences to the resource. */
function jwtSettings (jwt: SpecValue<typeof JWT>, authorizationServers: readonly string[], resource: string, at: At): JwtSettings {
  const issuers = jwt.issuers ?? authorizationServers
  if (jwt.jwksUri !== undefined && issuers.length !== 1) {
    at.key('jwt').key('jwksUri').error('one JWKS URL serves one issuer: with several issuers, let each one\'s metadata name its JWKS')
  }
  return Object.freeze({
    ...jwt,
    issuers: Object.freeze([...issuers]),
    audiences: Object.freeze([...(jwt.audience ?? audiencesOf(resource))]),
    algorithms: Object.freeze([...(jwt.algorithms ?? ASYMMETRIC_ALGORITHMS)])
  })
}

function audiencesOf (resource: string): string[] {
  const bare = resource.replace(/\/+$/, '')
  return [...new Set([resource, bare, bare + '/'])]
}

interface TokenCacheSettings { maxEntries: number, maxTtlMs: number }

const TOKEN_CACHE = toggle(group({
  maxEntries: integer({ min: 1, default: DEFAULT_TOKEN_CACHE_ENTRIES }),
  maxTtlMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_TOKEN_CACHE_TTL_MS })
}), true)

/** `tokenCache: false`: nothing is kept. */
const NO_TOKEN_CACHE: TokenCacheSettings = Object.freeze({ maxEntries: 0, maxTtlMs: 0 })

/** Checks the `authorization` option (absent: the endpoint is open). */
export const AUTHORIZATION = group({
  resource: RESOURCE,
  authorizationServers: array(ISSUER, { nonEmpty: true, required: true, expects: 'a non-empty array of issuer URLs (RFC 9728 authorization_servers)' }),
  scopesSupported: SCOPES,
  requiredScopes: SCOPES,
  methodScopes: SCOPE_MAP,
  impliedScopes: SCOPE_MAP,
  verifyAccessToken: func<AccessTokenVerifier>('a function (token, request) returning the token\'s facts, or null for an invalid token'),
  jwt: maybe(JWT),
  // Absent stays undefined: the default depends on the verifier.
  tokenCache: maybe(custom(TOKEN_CACHE.expects, (value, at) => TOKEN_CACHE.read(value, at) ?? NO_TOKEN_CACHE)),
  filterLists: boolean({ default: false }),
  exposeToken: boolean({ default: false }),
  serveMetadata: boolean({ default: true }),
  resourceName: string({ nonEmpty: true }),
  resourceDocumentation: string({ url: true })
}, {
  required: true,
  finish: (value, at): ResolvedAuthorization => {
    const { resource: { resource, resourceUrl }, verifyAccessToken, jwt, tokenCache, authorizationServers, ...rest } = value
    if (verifyAccessToken !== undefined && jwt !== undefined) {
      at.key('jwt').error('give either verifyAccessToken (your own verifier) or jwt (settings of the built-in one), not both')
    }
    const servers = Object.freeze(authorizationServers as string[])
    return Object.freeze({
      ...rest,
      resource,
      resourceUrl,
      authorizationServers: servers,
      verifier: verifyAccessToken !== undefined
        ? { kind: 'custom' as const, verify: verifyAccessToken }
        : { kind: 'jwt' as const, settings: jwtSettings(jwt ?? JWT.read(undefined, at.key('jwt')), servers, resource, at) },
      // A custom verifier is handed the request, so its answer may depend on more than the token:
      // nothing is kept unless asked for. The built-in JWT verification looks at the token alone.
      tokenCache: tokenCache ?? (verifyAccessToken !== undefined ? NO_TOKEN_CACHE : TOKEN_CACHE.read(true, at.key('tokenCache')) as TokenCacheSettings)
    })
  }
})

/** The `authorization` option checked on its own (the plugin checks it as part of the whole tree). */
export function resolveAuthorization (value: unknown): ResolvedAuthorization | undefined {
  return check(maybe(AUTHORIZATION), value, 'authorization', (path, message) => new FST_MCP_INVALID_OPTION(path, message))
}
