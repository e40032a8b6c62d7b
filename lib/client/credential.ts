/**
 * The authorization context of a request, as a cache key: a SHA-256 digest
 * of the credential headers, so the cache never holds the secret itself and
 * two credentials never share a `private` entry.
 */

export const DEFAULT_CREDENTIAL_HEADERS = Object.freeze(['authorization', 'cookie'])

/** The key for requests that carry none of the credential headers. */
export const ANONYMOUS = 'anonymous'

export async function credentialKey (headers: Headers, names: readonly string[] = DEFAULT_CREDENTIAL_HEADERS): Promise<string> {
  const present: Array<[string, string]> = []
  for (const name of [...new Set(names.map(n => n.toLowerCase()))].sort()) {
    const value = headers.get(name)
    if (value !== null) present.push([name, value])
  }
  if (present.length === 0) return ANONYMOUS
  const bytes = new TextEncoder().encode(JSON.stringify(present))
  const digest = await globalThis.crypto.subtle.digest('SHA-256', bytes)
  return 'sha256:' + Array.from(new Uint8Array(digest), b => b.toString(16).padStart(2, '0')).join('')
}
