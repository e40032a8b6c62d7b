/**
 * Which URLs the resource server may be pointed at: checked on the
 * `authorization` option at registration (lib/auth/authorization-options.ts)
 * and on what an issuer's metadata names (lib/auth/issuer-metadata.ts, loaded
 * with the JWT verifier only).
 */

/** A host on this machine: `localhost` (and its subdomains), 127.0.0.1, [::1]. */
export function isLoopback (url: URL): boolean {
  const host = url.hostname
  return host === 'localhost' || host === '127.0.0.1' || host === '[::1]' || host.endsWith('.localhost')
}

/** Loopback hosts may use plain http (local development and tests); everything else must be https. */
export function isSecureOrLoopback (url: URL): boolean {
  if (url.protocol === 'https:') return true
  return url.protocol === 'http:' && isLoopback(url)
}
