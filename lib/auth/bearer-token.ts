/**
 * Reads the access token from the `Authorization` header (RFC 6750 section
 * 2.1, the only method MCP allows: never the query string or the body).
 * Another scheme counts as no credential (a 401 without an error code, as
 * RFC 6750 section 3.1 asks). `Bearer` with nothing after it is an empty
 * token: a client whose token variable is unset must be sent to the
 * authorization server (401 `invalid_token`, as the official SDK's bearer
 * middleware answers), not told its request is malformed. A `Bearer`
 * credential that is not a b64token is a malformed request (400
 * `invalid_request`).
 */

/** `Bearer` in any case, then the b64token (RFC 6750: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

export const NO_BEARER = undefined
export const EMPTY_BEARER = ''

/**
 * The credential after `Bearer`, not yet checked for b64token syntax (a
 * token found in the verified-token cache needs no check); `undefined`
 * without a Bearer credential, `''` for `Bearer` and nothing else.
 */
export function bearerCandidate (header: string | undefined): string | undefined {
  if (header === undefined) return NO_BEARER
  // The usual spelling first: no case folding, no allocation but the slice.
  if (header.startsWith('Bearer ')) {
    const token = header.slice(7)
    return token.length > 0 && token.charCodeAt(0) > 0x20 && token.charCodeAt(token.length - 1) > 0x20 ? token : token.trim()
  }
  if (header.length < 6 || header.slice(0, 6).toLowerCase() !== 'bearer') return NO_BEARER
  if (header.length === 6) return EMPTY_BEARER
  const sep = header.charCodeAt(6)
  if (sep !== 0x20 && sep !== 0x09) return NO_BEARER // "Bearerish ..." is another scheme
  return header.slice(7).trim()
}

export function isB64Token (token: string): boolean {
  return B64TOKEN.test(token)
}
