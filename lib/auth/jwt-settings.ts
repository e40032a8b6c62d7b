/**
 * What the built-in JWT verifier checks, as plain data: kept apart from
 * jwt-verifier.ts so the options (and the package's declarations) never
 * need `jose`, an optional peer loaded only when JWT verification is used.
 */
/** The asymmetric JWS algorithms accepted unless configured otherwise. */
export const ASYMMETRIC_ALGORITHMS = Object.freeze(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'])

export interface JwtSettings {
  /** Accepted `iss` values (each one's JWKS is found through its metadata unless `jwksUri`/`jwks` is given). */
  issuers: readonly string[]
  /** Accepted `aud` values: the resource. */
  audiences: readonly string[]
  algorithms: readonly string[]
  clockToleranceSec: number
  /** A JWKS URL to use instead of metadata discovery (one issuer only). */
  jwksUri: URL | undefined
  /** A fixed key set instead of a fetched one. */
  jwks: { keys: object[] } | undefined
  /** Required `typ` header (e.g. `at+jwt`), when set. */
  typ: string | undefined
  /** Bound on each metadata or JWKS fetch. */
  fetchTimeoutMs: number
  /** After a JWKS fetch, a token with an unknown `kid` triggers no other fetch for this long. */
  jwksCooldownMs: number
}
