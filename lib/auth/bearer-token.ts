/**
 * Reads the access token from the `Authorization` header (RFC 6750 section
 * 2.1, the only method MCP allows: never the query string or the body).
 * Another scheme counts as no credential (a 401 without an error code, as
 * RFC 6750 section 3.1 asks); a `Bearer` credential that is not a b64token
 * is a malformed request (400 `invalid_request`).
 */

/** `Bearer` in any case, then the b64token (RFC 6750: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

export const NO_BEARER = undefined
export const MALFORMED_BEARER = null

/** The token; `undefined` when the request carries no Bearer credential; `null` when it is malformed. */
export function readBearerToken (header: string | undefined): string | null | undefined {
  if (header === undefined || header.length < 6 || header.slice(0, 6).toLowerCase() !== 'bearer') return NO_BEARER
  if (header.length === 6) return MALFORMED_BEARER
  const sep = header.charCodeAt(6)
  if (sep !== 0x20 && sep !== 0x09) return NO_BEARER // "Bearerish ..." is another scheme
  const token = header.slice(7).trim()
  return token.length > 0 && B64TOKEN.test(token) ? token : MALFORMED_BEARER
}
