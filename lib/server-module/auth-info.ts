/**
 * What a handler learns about the caller of an authorized request
 * (`ctx.auth`): part of the handler contract, so it lives here; the
 * authorization code (lib/auth/) fills it in.
 */

/** The verified access token, as handlers see it. */
export interface AuthInfo {
  /** The authorization server that issued the token (`iss`), when known. */
  readonly issuer: string | undefined
  /** The resource owner (`sub`), when the token names one. */
  readonly subject: string | undefined
  /** The OAuth client the token was issued to (`client_id`, else `azp`), when known. */
  readonly clientId: string | undefined
  /** The granted scopes (with the scopes they imply, see `impliedScopes`). */
  readonly scopes: readonly string[]
  /** Expiry in seconds since the epoch (`exp`), when known. */
  readonly expiresAt: number | undefined
  /** Every claim of a JWT, or what a custom verifier returned as `claims`. */
  readonly claims: Readonly<Record<string, unknown>>
  /** The raw token: only with `authorization.exposeToken: true` (never pass it on to another service). */
  readonly token?: string
}
