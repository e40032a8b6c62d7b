/**
 * Finds an authorization server's `jwks_uri` from its metadata: RFC 8414
 * first, then OpenID Connect Discovery, in the order the MCP spec gives
 * clients (path inserted after the well-known segment, then appended for
 * OpenID issuers with a path). A document counts only when its `issuer` is
 * exactly the issuer asked for (RFC 8414 section 3.3).
 */
import { MAX_METADATA_BYTES, readBounded } from './bounded-fetch.js'
import { isLoopback, isSecureOrLoopback } from './secure-url.js'

/**
 * Whether an issuer's metadata may send the key-set fetch to `jwksUri`:
 * https, and on a loopback host only for an issuer on loopback itself (a
 * remote server's document must not point this process at its own local
 * services, such as `http://127.0.0.1:6379/`).
 */
export function isAllowedJwksUri (jwksUri: URL, issuer: URL): boolean {
  if (!isSecureOrLoopback(jwksUri)) return false
  return !isLoopback(jwksUri) || isLoopback(issuer)
}

/** The metadata URLs to try for an issuer, in order. */
export function metadataCandidates (issuer: string): URL[] {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/+$/, '')
  const candidates = [
    new URL('/.well-known/oauth-authorization-server' + path, url.origin),
    new URL('/.well-known/openid-configuration' + path, url.origin)
  ]
  if (path !== '') candidates.push(new URL(path + '/.well-known/openid-configuration', url.origin))
  return candidates
}

export interface DiscoveryOptions {
  fetch: typeof globalThis.fetch
  timeoutMs: number
}

async function fetchJson (url: URL, options: DiscoveryOptions): Promise<{ status: number, body?: unknown }> {
  const response = await options.fetch(url, {
    headers: { accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(options.timeoutMs)
  })
  if (!response.ok) {
    await response.body?.cancel()
    return { status: response.status }
  }
  const bytes = await readBounded(response, MAX_METADATA_BYTES, url.href)
  return { status: response.status, body: JSON.parse(new TextDecoder().decode(bytes)) as unknown }
}

/** The issuer's JWKS URL; rejects with every attempt's failure when none of the documents will do. */
export async function discoverJwksUri (issuer: string, options: DiscoveryOptions): Promise<URL> {
  const failures: string[] = []
  for (const candidate of metadataCandidates(issuer)) {
    try {
      const { status, body } = await fetchJson(candidate, options)
      if (body === undefined) {
        failures.push(`${candidate.href}: HTTP ${status}`)
        continue
      }
      const doc = body as Record<string, unknown>
      if (doc === null || typeof doc !== 'object' || doc.issuer !== issuer) {
        failures.push(`${candidate.href}: "issuer" is not ${JSON.stringify(issuer)}`)
        continue
      }
      if (typeof doc.jwks_uri !== 'string' || !URL.canParse(doc.jwks_uri)) {
        failures.push(`${candidate.href}: no jwks_uri`)
        continue
      }
      const jwksUri = new URL(doc.jwks_uri)
      if (!isAllowedJwksUri(jwksUri, candidate)) {
        failures.push(`${candidate.href}: jwks_uri ${jwksUri.href} refused (https only; a loopback host only for a loopback issuer)`)
        continue
      }
      return jwksUri
    } catch (err) {
      failures.push(`${candidate.href}: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  throw new Error(`No usable authorization server metadata for ${issuer} (${failures.join('; ')})`)
}
