/**
 * The `authorization` option: what this endpoint is as an OAuth 2.1
 * resource server (its resource identifier, the authorization servers that
 * issue its tokens, its scopes) and how tokens are verified (built-in JWT
 * verification, or your own `verifyAccessToken`). Checked at registration
 * like every other option.
 */
import type { FastifyRequest } from 'fastify'
import { FST_MCP_INVALID_OPTION } from '../errors.js'
import type { VerifiedAccessToken } from './verified-token.js'
import { isScopeToken } from './challenge.js'
import { isSecureOrLoopback } from './issuer-metadata.js'
import { ASYMMETRIC_ALGORITHMS, type JwtSettings } from './jwt-settings.js'
import { isJsonObject } from '../protocol/jsonrpc.js'

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
  /** Verified tokens kept (never past their expiry); `false` verifies every request. Default `{ maxEntries: 1000, maxTtlMs: 300000 }`. */
  tokenCache?: { maxEntries?: number, maxTtlMs?: number } | false
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
  tokenCache: { maxEntries: number, maxTtlMs: number }
  filterLists: boolean
  exposeToken: boolean
  serveMetadata: boolean
  resourceName: string | undefined
  resourceDocumentation: string | undefined
}

const KNOWN = new Set(['resource', 'authorizationServers', 'scopesSupported', 'requiredScopes', 'methodScopes', 'impliedScopes',
  'verifyAccessToken', 'jwt', 'tokenCache', 'filterLists', 'exposeToken', 'serveMetadata', 'resourceName', 'resourceDocumentation'])
const KNOWN_JWT = new Set(['issuers', 'audience', 'algorithms', 'clockToleranceSec', 'jwksUri', 'jwks', 'typ', 'fetchTimeoutMs', 'jwksCooldownMs'])

function fail (name: string, message: string): never {
  throw new FST_MCP_INVALID_OPTION(`authorization.${name}`, message)
}

function checkKeys (name: string, value: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) fail(name === '' ? key : `${name}.${key}`, `unknown option (known: ${[...known].join(', ')})`)
  }
}

function scopeList (name: string, value: unknown): readonly string[] {
  if (value === undefined) return Object.freeze([])
  if (!Array.isArray(value) || !value.every(isScopeToken)) {
    fail(name, 'expected an array of scope tokens (printable ASCII, no spaces, quotes or backslashes)')
  }
  return Object.freeze([...new Set(value as string[])])
}

function scopeMap (name: string, value: unknown): ReadonlyMap<string, readonly string[]> {
  if (value === undefined) return new Map()
  if (!isJsonObject(value)) fail(name, 'expected an object whose values are arrays of scope tokens')
  const map = new Map<string, readonly string[]>()
  for (const [key, scopes] of Object.entries(value)) {
    const list = scopeList(`${name}["${key}"]`, scopes)
    if (list.length > 0) map.set(key, list)
  }
  return map
}

/** An absolute http(s) URL without fragment or query; a bare origin keeps its trailing-slash-free form. */
function checkResource (value: unknown): URL {
  if (typeof value !== 'string' || !URL.canParse(value)) fail('resource', 'expected the endpoint\'s absolute URL, e.g. "https://mcp.example.com/mcp"')
  const url = new URL(value as string)
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('resource', 'expected an http or https URL')
  if (url.hash !== '' || (value as string).includes('#')) fail('resource', 'a resource identifier has no fragment (RFC 8707)')
  if (url.search !== '' || (value as string).includes('?')) fail('resource', 'a resource identifier has no query (RFC 8707)')
  if (url.username !== '' || url.password !== '') fail('resource', 'a resource identifier has no user information')
  return url
}

function checkIssuer (name: string, value: unknown): string {
  if (typeof value !== 'string' || !URL.canParse(value)) fail(name, 'expected an issuer URL')
  const url = new URL(value as string)
  if (!isSecureOrLoopback(url)) fail(name, `"${value as string}" must use https (plain http only on loopback hosts)`)
  if (url.hash !== '' || url.search !== '') fail(name, `"${value as string}" must have no query or fragment (RFC 8414)`)
  return value as string
}

function positiveInt (name: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) fail(name, `expected an integer ≥ ${min}`)
  return value as number
}

function audiencesOf (resource: string): string[] {
  const bare = resource.replace(/\/+$/, '')
  return [...new Set([resource, bare, bare + '/'])]
}

function checkJwt (value: unknown, authorizationServers: readonly string[], resource: string): JwtSettings {
  if (value !== undefined && !isJsonObject(value)) fail('jwt', 'expected an object')
  const jwt = value ?? {}
  checkKeys('jwt', jwt, KNOWN_JWT)
  const issuers = jwt.issuers === undefined
    ? authorizationServers
    : Array.isArray(jwt.issuers) && jwt.issuers.length > 0
      ? jwt.issuers.map((issuer, i) => checkIssuer(`jwt.issuers[${i}]`, issuer))
      : fail('jwt.issuers', 'expected a non-empty array of issuer URLs')
  const audiences = jwt.audience === undefined
    ? audiencesOf(resource)
    : Array.isArray(jwt.audience) && jwt.audience.length > 0 && jwt.audience.every((a) => typeof a === 'string' && a.length > 0)
      ? jwt.audience as string[]
      : fail('jwt.audience', 'expected a non-empty array of strings')
  let algorithms: readonly string[] = ASYMMETRIC_ALGORITHMS
  if (jwt.algorithms !== undefined) {
    if (!Array.isArray(jwt.algorithms) || jwt.algorithms.length === 0 || !jwt.algorithms.every((a) => typeof a === 'string')) {
      fail('jwt.algorithms', 'expected a non-empty array of JWS algorithm names')
    }
    for (const alg of jwt.algorithms as string[]) {
      if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
        fail('jwt.algorithms', `"${alg}" is not accepted: only asymmetric algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}) can be checked against a public JWKS`)
      }
    }
    algorithms = jwt.algorithms as string[]
  }
  const clockToleranceSec = jwt.clockToleranceSec === undefined ? DEFAULT_CLOCK_TOLERANCE_SEC : jwt.clockToleranceSec
  if (typeof clockToleranceSec !== 'number' || !Number.isSafeInteger(clockToleranceSec) || clockToleranceSec < 0 || clockToleranceSec > 300) {
    fail('jwt.clockToleranceSec', 'expected an integer from 0 to 300 (seconds)')
  }
  let jwksUri: URL | undefined
  if (jwt.jwksUri !== undefined) {
    if (typeof jwt.jwksUri !== 'string' || !URL.canParse(jwt.jwksUri) || !isSecureOrLoopback(new URL(jwt.jwksUri))) {
      fail('jwt.jwksUri', 'expected an https URL (plain http only on loopback hosts)')
    }
    if (issuers.length !== 1) fail('jwt.jwksUri', 'one JWKS URL serves one issuer: with several issuers, let each one\'s metadata name its JWKS')
    jwksUri = new URL(jwt.jwksUri as string)
  }
  let jwks: { keys: object[] } | undefined
  if (jwt.jwks !== undefined) {
    if (!isJsonObject(jwt.jwks) || !Array.isArray(jwt.jwks.keys) || !jwt.jwks.keys.every(isJsonObject)) fail('jwt.jwks', 'expected a JWKS object { keys: [...] }')
    if (jwksUri !== undefined) fail('jwt.jwks', 'give jwks or jwksUri, not both')
    if ((jwt.jwks.keys as Array<Record<string, unknown>>).some((k) => k.kty === 'oct' || 'd' in k)) {
      fail('jwt.jwks', 'expected public keys only (no symmetric "oct" keys, no private parts)')
    }
    jwks = structuredClone(jwt.jwks) as { keys: object[] }
  }
  if (jwt.typ !== undefined && (typeof jwt.typ !== 'string' || jwt.typ.length === 0)) fail('jwt.typ', 'expected a non-empty string such as "at+jwt"')
  return Object.freeze({
    issuers: Object.freeze([...issuers]),
    audiences: Object.freeze([...audiences]),
    algorithms: Object.freeze([...algorithms]),
    clockToleranceSec: clockToleranceSec as number,
    jwksUri,
    jwks,
    typ: jwt.typ as string | undefined,
    fetchTimeoutMs: positiveInt('jwt.fetchTimeoutMs', jwt.fetchTimeoutMs, DEFAULT_FETCH_TIMEOUT_MS),
    jwksCooldownMs: positiveInt('jwt.jwksCooldownMs', jwt.jwksCooldownMs, DEFAULT_JWKS_COOLDOWN_MS, 0)
  })
}

function checkTokenCache (value: unknown): { maxEntries: number, maxTtlMs: number } {
  if (value === false) return { maxEntries: 0, maxTtlMs: 0 }
  if (value === undefined) return { maxEntries: DEFAULT_TOKEN_CACHE_ENTRIES, maxTtlMs: DEFAULT_TOKEN_CACHE_TTL_MS }
  if (!isJsonObject(value)) fail('tokenCache', 'expected { maxEntries?, maxTtlMs? } or false')
  checkKeys('tokenCache', value, new Set(['maxEntries', 'maxTtlMs']))
  return {
    maxEntries: positiveInt('tokenCache.maxEntries', value.maxEntries, DEFAULT_TOKEN_CACHE_ENTRIES),
    maxTtlMs: positiveInt('tokenCache.maxTtlMs', value.maxTtlMs, DEFAULT_TOKEN_CACHE_TTL_MS)
  }
}

function optionalBoolean (name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (typeof value !== 'boolean') fail(name, 'expected a boolean')
  return value as boolean
}

/** Checks the `authorization` option; undefined when it is absent (the endpoint is open). */
export function resolveAuthorization (value: unknown): ResolvedAuthorization | undefined {
  if (value === undefined) return undefined
  if (!isJsonObject(value)) throw new FST_MCP_INVALID_OPTION('authorization', 'expected an object { resource, authorizationServers, ... }')
  checkKeys('', value, KNOWN)
  const resourceUrl = checkResource(value.resource)
  const resource = value.resource as string
  if (!Array.isArray(value.authorizationServers) || value.authorizationServers.length === 0) {
    fail('authorizationServers', 'expected a non-empty array of issuer URLs (RFC 9728 authorization_servers)')
  }
  const authorizationServers = Object.freeze((value.authorizationServers as unknown[]).map((s, i) => checkIssuer(`authorizationServers[${i}]`, s)))
  if (value.verifyAccessToken !== undefined && typeof value.verifyAccessToken !== 'function') {
    fail('verifyAccessToken', 'expected a function (token, request) returning the token\'s facts, or null for an invalid token')
  }
  if (value.verifyAccessToken !== undefined && value.jwt !== undefined) {
    fail('jwt', 'give either verifyAccessToken (your own verifier) or jwt (settings of the built-in one), not both')
  }
  const verifier: ResolvedVerifier = typeof value.verifyAccessToken === 'function'
    ? { kind: 'custom', verify: value.verifyAccessToken as AccessTokenVerifier }
    : { kind: 'jwt', settings: checkJwt(value.jwt, authorizationServers, resource) }
  const resourceName = value.resourceName
  if (resourceName !== undefined && (typeof resourceName !== 'string' || resourceName.length === 0)) fail('resourceName', 'expected a non-empty string')
  const doc = value.resourceDocumentation
  if (doc !== undefined && (typeof doc !== 'string' || !URL.canParse(doc))) fail('resourceDocumentation', 'expected a URL')
  return Object.freeze({
    resource,
    resourceUrl,
    authorizationServers,
    scopesSupported: scopeList('scopesSupported', value.scopesSupported),
    requiredScopes: scopeList('requiredScopes', value.requiredScopes),
    methodScopes: scopeMap('methodScopes', value.methodScopes),
    impliedScopes: scopeMap('impliedScopes', value.impliedScopes),
    verifier,
    tokenCache: checkTokenCache(value.tokenCache),
    filterLists: optionalBoolean('filterLists', value.filterLists, false),
    exposeToken: optionalBoolean('exposeToken', value.exposeToken, false),
    serveMetadata: optionalBoolean('serveMetadata', value.serveMetadata, true),
    resourceName: resourceName as string | undefined,
    resourceDocumentation: doc as string | undefined
  })
}
