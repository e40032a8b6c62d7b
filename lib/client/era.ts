/**
 * Era detection from the answer to a modern probe, as the 2026-07-28
 * Streamable HTTP "Backward Compatibility" rules say: a recognized modern
 * JSON-RPC error means a modern server (retry with a supported version, or
 * report the error); a 4xx without one means a legacy server (fall back to
 * `initialize`). Anything else is an error, never a guess.
 */
import { ErrorCode } from '../protocol/mcp-error.js'
import { isLegacyVersion, isModernVersion } from '../protocol/versions.js'
import type { JsonRpcResponse } from './exchange.js'

export type ProbeVerdict =
  /** The probe succeeded: read the result. */
  | { verdict: 'result', result: unknown }
  /** Modern server, -32022: retry with this modern version. */
  | { verdict: 'retry-modern', version: string }
  /** -32022 naming only legacy versions this client speaks: `initialize` with this one. */
  | { verdict: 'legacy', reason: 'legacy-version-offered', version: string, detail: string }
  /** Legacy server: fall back to `initialize`. */
  | { verdict: 'legacy', reason: 'http-status' | 'non-modern-error', version: null, detail: string }
  /** A modern server refused the request: surface its error. */
  | { verdict: 'modern-error', error: { code: number, message: string, data?: unknown } }
  /** Neither era can be told: a JSON-RPC error on a 5xx, or an HTTP failure without a JSON-RPC body. */
  | { verdict: 'error', error: { code: number, message: string, data?: unknown } | null }

/** Modern errors that prove a 2026-07-28 server whatever the status. */
const ALWAYS_MODERN: ReadonlySet<number> = new Set([
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion
])

/**
 * @param status the HTTP status of the probe's answer
 * @param response the JSON-RPC response found in its body, if any
 * @param requested the modern version the probe asked for
 */
export function classifyProbe (status: number, response: JsonRpcResponse | null, requested: string): ProbeVerdict {
  const is2xx = status >= 200 && status < 300
  const is4xx = status >= 400 && status < 500

  if (response === null) {
    if (is4xx) return { verdict: 'legacy', reason: 'http-status', version: null, detail: `server/discover answered HTTP ${status} without a JSON-RPC error` }
    return { verdict: 'error', error: null }
  }
  if (response.kind === 'result') {
    return is2xx ? { verdict: 'result', result: response.result } : { verdict: 'error', error: null }
  }

  const { error } = response
  if (error.code === ErrorCode.UnsupportedProtocolVersion) {
    const supported = versionList(error.data)
    const modern = supported.find(v => isModernVersion(v) && v !== requested)
    if (modern !== undefined) return { verdict: 'retry-modern', version: modern }
    const legacy = supported.find(v => isLegacyVersion(v))
    if (legacy !== undefined) {
      return { verdict: 'legacy', reason: 'legacy-version-offered', version: legacy, detail: `server/discover answered -32022 naming only legacy versions (${supported.join(', ')})` }
    }
    return { verdict: 'modern-error', error }
  }
  if (ALWAYS_MODERN.has(error.code)) return { verdict: 'modern-error', error }
  // These two are modern only with the status a modern server pairs them with.
  if (error.code === ErrorCode.InvalidParams && status === 400) return { verdict: 'modern-error', error }
  if (error.code === ErrorCode.MethodNotFound && status === 404) return { verdict: 'modern-error', error }

  if (is4xx || is2xx) {
    return { verdict: 'legacy', reason: 'non-modern-error', version: null, detail: `server/discover answered HTTP ${status} with JSON-RPC error ${error.code}, not a modern error` }
  }
  return { verdict: 'error', error }
}

/** `data.supported` of a -32022 error, strings only. */
function versionList (data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return []
  const supported = (data as Record<string, unknown>).supported
  return Array.isArray(supported) ? supported.filter((v): v is string => typeof v === 'string') : []
}
