/**
 * `discover(url, options)`: learn what an MCP server offers and which era it
 * speaks, with one modern `server/discover` request and, for a legacy
 * server, the `initialize` handshake.
 */
import { parseDiscoverResult } from '../protocol/discover-result.js'
import type { CacheScope, ParsedDiscoverResult, ServerInfo } from '../protocol/discover-result.js'
import { LATEST_LEGACY_VERSION, LATEST_MODERN_VERSION } from '../protocol/versions.js'
import { classifyProbe } from './era.js'
import {
  DiscoverAbortError,
  DiscoverError,
  DiscoverHttpError,
  DiscoverInvalidResultError,
  DiscoverJsonRpcError,
  DiscoverNetworkError,
  DiscoverTimeoutError
} from './discover-errors.js'
import { type Channel, type FetchLike, postHeaders, request } from './exchange.js'
import { initialize } from './initialize-probe.js'
import type { LegacyInitializeResult } from './initialize-probe.js'
import { MAX_TIMER_MS } from '../common/timers.js'

export const DEFAULT_TIMEOUT_MS = 10_000
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024
export const DEFAULT_CLIENT_INFO = Object.freeze({ name: 'fastify-mcp-capabilities', version: '0.1.0' })

const META = 'io.modelcontextprotocol/'

export interface DiscoverOptions {
  /** Request headers, e.g. `{ authorization: 'Bearer …' }`. Protocol headers are set by the client. */
  headers?: ConstructorParameters<typeof Headers>[0]
  /** The `fetch` to use; defaults to the global one. */
  fetch?: FetchLike
  /** Limit for the whole discovery, every request included. Default 10 000 ms. */
  timeoutMs?: number
  signal?: AbortSignal
  /** Sent as `_meta["io.modelcontextprotocol/clientInfo"]` and as legacy `clientInfo`. */
  clientInfo?: { name: string, version: string, [key: string]: unknown }
  /** Sent as `_meta["io.modelcontextprotocol/clientCapabilities"]` and as legacy `capabilities`. Default `{}`. */
  clientCapabilities?: Record<string, unknown>
  /** The modern version to ask for first. Default `2026-07-28`. */
  protocolVersion?: string
  /** The legacy version offered in `initialize`. Default `2025-11-25`. */
  legacyProtocolVersion?: string
  /** Upper bound on the bytes read from one answer. Default 1 MiB. */
  maxResponseBytes?: number
  /** The clock for `receivedAt`, in ms. Default `Date.now`. */
  now?: () => number
}

/** Why the era was chosen. */
export type ModernReason =
  /** `server/discover` returned a DiscoverResult. */
  | 'discover-result'
  /** It did after a -32022 retry with a version from `data.supported`. */
  | 'discover-result-after-retry'

export type LegacyReason =
  /** The probe got a 4xx without a JSON-RPC error body. */
  | 'http-status'
  /** The probe got a JSON-RPC error that is not a recognized modern error. */
  | 'non-modern-error'
  /** The probe got -32022 naming only legacy versions. */
  | 'legacy-version-offered'

export interface DiscoveryCommon {
  /** The endpoint, normalized. */
  url: string
  /** A sentence on how the era was told, for logs. */
  detail: string
  /** The version in use: the one the DiscoverResult was obtained with, or the one `initialize` settled on. */
  protocolVersion: string
  supportedVersions: string[]
  capabilities: Record<string, unknown>
  serverInfo: ServerInfo | null
  instructions: string | null
  /** Cache hints; a legacy server gives none, so `0` / `'private'`. */
  ttlMs: number
  cacheScope: CacheScope
  /** `now()` when the answer was received. */
  receivedAt: number
}

export interface ModernDiscovery extends DiscoveryCommon {
  era: 'modern'
  reason: ModernReason
  /** The parsed DiscoverResult. */
  result: ParsedDiscoverResult
}

export interface LegacyDiscovery extends DiscoveryCommon {
  era: 'legacy'
  reason: LegacyReason
  result: LegacyInitializeResult
  /** What the modern probe got. */
  probe: { status: number, errorCode: number | null }
}

export type Discovery = ModernDiscovery | LegacyDiscovery

export async function discover (url: string | URL, options: DiscoverOptions = {}): Promise<Discovery> {
  const endpoint = normalizeUrl(url)
  const fetchFn = options.fetch ?? (globalThis.fetch as FetchLike | undefined)
  if (typeof fetchFn !== 'function') throw new TypeError('discover: no fetch available; pass options.fetch')
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  // setTimeout fires at once for delays above 2^31 - 1 ms, so those are refused too
  if (!(typeof timeoutMs === 'number' && timeoutMs > 0 && timeoutMs <= MAX_TIMER_MS)) {
    throw new TypeError(`discover: timeoutMs must be a number in (0, ${MAX_TIMER_MS}]`)
  }
  const now = options.now ?? Date.now
  // Built here so that a malformed header is the caller's TypeError, not a network error.
  const headers = new Headers(options.headers)

  const { signal, timedOut, dispose } = deadline(timeoutMs, options.signal)
  try {
    return await run(endpoint, fetchFn, signal, now, headers, options)
  } catch (err) {
    if (err instanceof DiscoverError) throw err
    if (timedOut()) throw new DiscoverTimeoutError(endpoint, timeoutMs)
    if (options.signal?.aborted === true) {
      throw new DiscoverAbortError(endpoint, `discovery of ${endpoint} was aborted`, { cause: options.signal.reason })
    }
    throw new DiscoverNetworkError(endpoint, `discovery of ${endpoint} failed: ${(err as Error)?.message ?? String(err)}`, { cause: err })
  } finally {
    dispose()
  }
}

async function run (url: string, fetchFn: FetchLike, signal: AbortSignal, now: () => number, userHeaders: Headers, options: DiscoverOptions): Promise<Discovery> {
  const channel: Channel = { fetch: fetchFn, url, signal, maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES }
  const clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO
  const clientCapabilities = options.clientCapabilities ?? {}
  let version = options.protocolVersion ?? LATEST_MODERN_VERSION
  let retried = false

  for (;;) {
    const headers = postHeaders(userHeaders)
    headers.set('mcp-protocol-version', version)
    headers.set('mcp-method', 'server/discover')
    const answer = await request(channel, headers, 'server/discover', {
      _meta: {
        [`${META}protocolVersion`]: version,
        [`${META}clientInfo`]: clientInfo,
        [`${META}clientCapabilities`]: clientCapabilities
      }
    })
    const receivedAt = now()
    const verdict = classifyProbe(answer.status, answer.response, version)

    switch (verdict.verdict) {
      case 'result': {
        const parsed = parseDiscoverResult(verdict.result)
        // A bad DiscoverResult is the server's error, never a sign of a legacy server.
        if (!parsed.ok) throw new DiscoverInvalidResultError(url, parsed.error.reason, parsed.error.message, verdict.result)
        const r = parsed.result
        return {
          era: 'modern',
          reason: retried ? 'discover-result-after-retry' : 'discover-result',
          detail: `server/discover returned a DiscoverResult for ${version}`,
          url,
          protocolVersion: version,
          supportedVersions: r.supportedVersions,
          capabilities: r.capabilities,
          serverInfo: r.serverInfo,
          instructions: r.instructions,
          ttlMs: r.ttlMs,
          cacheScope: r.cacheScope,
          receivedAt,
          result: r
        }
      }
      case 'retry-modern':
        if (retried) break
        retried = true
        version = verdict.version
        continue
      case 'legacy': {
        const result = await initialize({
          ...channel,
          headers: userHeaders,
          protocolVersion: verdict.version ?? options.legacyProtocolVersion ?? LATEST_LEGACY_VERSION,
          clientInfo,
          clientCapabilities
        })
        return {
          era: 'legacy',
          reason: verdict.reason,
          detail: verdict.detail,
          url,
          protocolVersion: result.protocolVersion,
          supportedVersions: [result.protocolVersion],
          capabilities: result.capabilities,
          serverInfo: result.serverInfo,
          instructions: result.instructions,
          ttlMs: 0,
          cacheScope: 'private',
          receivedAt: now(),
          result,
          probe: { status: answer.status, errorCode: answer.response?.kind === 'error' ? answer.response.error.code : null }
        }
      }
      case 'modern-error':
        throw new DiscoverJsonRpcError(url, 'server/discover', answer.status, verdict.error, 'modern')
      case 'error':
        if (verdict.error !== null) throw new DiscoverJsonRpcError(url, 'server/discover', answer.status, verdict.error, null)
        throw new DiscoverHttpError(url, 'server/discover', answer.status, `server/discover answered HTTP ${answer.status} without a usable JSON-RPC response`, answer.bodySnippet)
    }
    // A second -32022 after a retry: the server does not accept what it advertised.
    const error = answer.response?.kind === 'error' ? answer.response.error : { code: -32022, message: 'Unsupported protocol version' }
    throw new DiscoverJsonRpcError(url, 'server/discover', answer.status, error, 'modern')
  }
}

/** An http(s) URL, as a string; anything else is a caller error. */
export function normalizeUrl (url: string | URL): string {
  let parsed: URL
  try {
    parsed = new URL(String(url))
  } catch {
    throw new TypeError(`discover: invalid URL ${JSON.stringify(String(url))}`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`discover: expected an http(s) URL, got ${parsed.protocol}`)
  }
  parsed.hash = '' // never sent, so never part of an endpoint's identity
  return parsed.href
}

/** One signal for the whole discovery: the caller's signal or the timeout, whichever fires first. */
function deadline (timeoutMs: number, outer: AbortSignal | undefined): { signal: AbortSignal, timedOut: () => boolean, dispose: () => void } {
  const controller = new AbortController()
  let expired = false
  const timer = setTimeout(() => {
    expired = true
    controller.abort(new Error(`timed out after ${timeoutMs} ms`))
  }, timeoutMs)
  const onAbort = (): void => controller.abort(outer?.reason)
  if (outer !== undefined) {
    if (outer.aborted) onAbort()
    else outer.addEventListener('abort', onAbort, { once: true })
  }
  return {
    signal: controller.signal,
    timedOut: () => expired && outer?.aborted !== true,
    dispose () {
      clearTimeout(timer)
      outer?.removeEventListener('abort', onAbort)
    }
  }
}
