/**
 * DNS-rebinding defence (docs/security.md): which `Origin` and `Host`
 * headers may reach the endpoint.
 *
 * With nothing configured, a connection that arrives on a loopback address
 * accepts only loopback origins and hosts (a rebinding page names a foreign
 * host). Elsewhere (a LAN interface, a Unix socket behind a reverse proxy)
 * the server cannot know its public names, and a rebinding page always has
 * `Origin` equal to `Host`: so a request that carries an `Origin` (a browser)
 * is refused unless `allowedOrigins` names it, or `allowedHosts` names its
 * host and it matches `Host`. Clients that send no `Origin` (not browsers,
 * which cannot be rebound) are served. `inject()` has no socket address and
 * is judged by its `remoteAddress` (127.0.0.1 unless set): like loopback.
 */
import { Socket } from 'node:net'
import type { FastifyRequest } from 'fastify'

const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

function isLoopbackAddress (address: string | undefined): boolean {
  if (address === undefined) return false
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.')
}

/** The host name of a `Host` header value or URL host, without port, lower-cased. */
function hostName (host: string): string {
  const h = host.toLowerCase()
  if (h.startsWith('[')) {
    const end = h.indexOf(']')
    return end === -1 ? h : h.slice(0, end + 1)
  }
  const colon = h.indexOf(':')
  return colon === -1 ? h : h.slice(0, colon)
}

function isLoopbackName (name: string): boolean {
  // The two names nearly every local request carries are compared first: no hashing, no regex.
  return name === '127.0.0.1' || name === 'localhost' || LOOPBACK_NAMES.has(name) || name.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(name)
}

/**
 * `127.0.0.1` or `localhost`, with or without a port, exactly as nearly every
 * local client sends it: recognised without lower-casing or cutting the
 * header (two string copies per request otherwise). Anything else takes
 * `hostName` and `isLoopbackName`.
 */
function isPlainLoopbackHost (host: string): boolean {
  if (host.length !== 9 && host.charCodeAt(9) !== 58 /* : */) return false
  return host.startsWith('127.0.0.1') || host.startsWith('localhost')
}

export type SecurityVerdict = 'ok' | 'origin' | 'host'

export interface SecurityPolicy {
  allowedOrigins: ReadonlySet<string> | true | undefined
  allowedHosts: ReadonlySet<string> | true | undefined
}

/** Whether the request came over loopback: its local address, or for `inject()` (no real socket) its remote one. */
function arrivedOnLoopback (request: FastifyRequest): boolean {
  const socket = request.raw.socket as Socket | undefined
  if (socket === undefined || socket === null) return false
  return socket instanceof Socket ? isLoopbackAddress(socket.localAddress) : isLoopbackAddress((socket as { remoteAddress?: string }).remoteAddress)
}

/** Returns which header (if any) makes the request unacceptable. */
export function checkRequestSource (request: FastifyRequest, policy: SecurityPolicy): SecurityVerdict {
  const headers = request.headers
  const host = headers.host
  // How the request arrived is read only when a verdict depends on it: a loopback Host without an Origin,
  // nearly every local request, needs no look at the socket.
  let onLoopback: boolean | undefined

  const { allowedHosts } = policy
  if (allowedHosts !== true) {
    if (allowedHosts !== undefined) {
      if (host === undefined) return 'host'
      const h = host.toLowerCase()
      if (!allowedHosts.has(h) && !allowedHosts.has(hostName(h))) return 'host'
    } else if (host !== undefined && !isPlainLoopbackHost(host) && (onLoopback = arrivedOnLoopback(request)) && !isLoopbackName(hostName(host))) {
      return 'host'
    }
  }

  const origin = headers.origin
  if (origin === undefined) return 'ok' // not a browser: nothing to rebind
  const { allowedOrigins } = policy
  if (allowedOrigins === true) return 'ok'
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return 'origin' // includes the literal "null" origin of sandboxed pages
  }
  if (allowedOrigins !== undefined) return allowedOrigins.has(url.origin) ? 'ok' : 'origin'
  if (onLoopback ?? arrivedOnLoopback(request)) return isLoopbackName(url.hostname.toLowerCase()) ? 'ok' : 'origin'
  // Off loopback a browser needs configuration: an allowed host it names and calls (Host was checked above).
  if (allowedHosts === undefined || allowedHosts === true) return 'origin'
  return host !== undefined && url.host.toLowerCase() === host.toLowerCase() ? 'ok' : 'origin'
}
