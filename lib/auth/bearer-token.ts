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

/**
 * The credential after `Bearer`, not yet checked for b64token syntax (a
 * token found in the verified-token cache needs no check); `undefined`
 * without a Bearer credential, `null` for `Bearer` and nothing else.
 */
export function bearerCandidate (header: string | undefined): string | null | undefined {
  if (header === undefined) return NO_BEARER
  // The usual spelling first: no case folding, no allocation but the slice.
  if (header.startsWith('Bearer ')) {
    const token = header.slice(7)
    return token.length > 0 && token.charCodeAt(0) > 0x20 && token.charCodeAt(token.length - 1) > 0x20 ? token : trimmed(token)
  }
  if (header.length < 6 || header.slice(0, 6).toLowerCase() !== 'bearer') return NO_BEARER
  if (header.length === 6) return MALFORMED_BEARER
  const sep = header.charCodeAt(6)
  if (sep !== 0x20 && sep !== 0x09) return NO_BEARER // "Bearerish ..." is another scheme
  return trimmed(header.slice(7))
}

function trimmed (token: string): string | null {
  const t = token.trim()
  return t.length > 0 ? t : MALFORMED_BEARER
}

export function isB64Token (token: string): boolean {
  return B64TOKEN.test(token)
}

/** The token; `undefined` when the request carries no Bearer credential; `null` when it is malformed. */
export function readBearerToken (header: string | undefined): string | null | undefined {
  const token = bearerCandidate(header)
  return typeof token === 'string' && !isB64Token(token) ? MALFORMED_BEARER : token
}
