/**
 * `WWW-Authenticate` challenges of the Bearer scheme (RFC 6750 section 3,
 * RFC 9728 section 5.1), as MCP clients read them: `resource_metadata` tells
 * a client where the protected-resource metadata is, `scope` which scopes to
 * ask for, `error` why the token was refused.
 */

export type BearerError = 'invalid_request' | 'invalid_token' | 'insufficient_scope'

/** RFC 6749 scope-token: `1*( %x21 / %x23-5B / %x5D-7E )`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/

export function isScopeToken (value: unknown): value is string {
  return typeof value === 'string' && SCOPE_TOKEN.test(value)
}

/** RFC 6750 error_description: `*( %x20-21 / %x23-5B / %x5D-7E )`; anything else becomes a space. */
function describe (text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ').slice(0, 200)
}

export interface ChallengeParts {
  /** Absolute URL of the protected-resource metadata document. */
  resourceMetadata: string
  error?: BearerError
  description?: string
  /** Scopes the client should ask for (checked scope-tokens, so they need no escaping). */
  scopes?: readonly string[]
}

/** The header value; `resource_metadata` first, the order MCP's examples use. */
export function bearerChallenge ({ resourceMetadata, error, description, scopes }: ChallengeParts): string {
  // The URL is checked at registration (no quote or backslash can survive URL parsing unescaped).
  let header = 'Bearer resource_metadata="' + resourceMetadata + '"'
  if (error !== undefined) header += ', error="' + error + '"'
  if (description !== undefined && description.length > 0) header += ', error_description="' + describe(description) + '"'
  if (scopes !== undefined && scopes.length > 0) header += ', scope="' + scopes.join(' ') + '"'
  return header
}
