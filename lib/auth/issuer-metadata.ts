/**
 * Finds an authorization server's `jwks_uri` from its metadata: RFC 8414
 * first, then OpenID Connect Discovery, in the order the MCP spec gives
 * clients (path inserted after the well-known segment, then appended for
 * OpenID issuers with a path). A document counts only when its `issuer` is
 * exactly the issuer asked for (RFC 8414 section 3.3).
 */

/** Loopback hosts may use plain http (local development and tests); everything else must be https. */
export function isSecureOrLoopback (url: URL): boolean {
  if (url.protocol === 'https:') return true
  if (url.protocol !== 'http:') return false
  const host = url.hostname
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost')
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

/** Largest metadata document read (they are a few KiB). */
const MAX_METADATA_BYTES = 256 * 1024

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
  const text = await response.text()
  if (text.length > MAX_METADATA_BYTES) return { status: response.status }
  return { status: response.status, body: JSON.parse(text) as unknown }
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
      if (!isSecureOrLoopback(jwksUri)) {
        failures.push(`${candidate.href}: jwks_uri ${jwksUri.href} is not https`)
        continue
      }
      return jwksUri
    } catch (err) {
      failures.push(`${candidate.href}: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  throw new Error(`No usable authorization server metadata for ${issuer} (${failures.join('; ')})`)
}
