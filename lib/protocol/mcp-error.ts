/**
 * Protocol errors: what a handler throws to answer a request with a JSON-RPC
 * error, and the codes the endpoint itself uses.
 */
import { clip } from './describe.js'

export const ErrorCode = Object.freeze({
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2026-07-28: an HTTP header disagrees with the JSON-RPC body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request lacks a client capability the handler needs. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: the requested protocol version is not served. */
  UnsupportedProtocolVersion: -32022,
  /**
   * Legacy revisions: the resource does not exist. 2026-07-28 answers
   * -32602 with `data.uri` instead (SEP-2164); the modern endpoint rewrites it.
   */
  ResourceNotFound: -32002
} as const)

/** Throw from a handler to answer with this JSON-RPC error. */
export class McpError extends Error {
  readonly code: number
  readonly data: unknown

  constructor (code: number, message: string, data?: unknown) {
    super(message)
    this.name = 'McpError'
    this.code = code
    this.data = data
  }
}

/**
 * The most characters of a client's URI an error's `data.uri` echoes: a
 * longer one (a legacy request has no header bound: ~1 MB is possible) is
 * cut there, with an ellipsis.
 */
export const MAX_ECHOED_URI_LENGTH = 8192

/** `uri` as an error's `data.uri` carries it: whole, or cut to `MAX_ECHOED_URI_LENGTH` characters. */
export function echoedUri (uri: string): string {
  return uri.length > MAX_ECHOED_URI_LENGTH ? uri.slice(0, MAX_ECHOED_URI_LENGTH) + '…' : uri
}

/**
 * "Resource not found" for `readResource`: `throw resourceNotFound(params.uri)`.
 * It carries the legacy code (-32002) and `data.uri`; the modern endpoint
 * answers any -32002 as -32602 with the same data (SEP-2164), so a handler
 * never needs to know the era.
 */
export function resourceNotFound (uri: string): McpError {
  // The message quotes a few dozen characters; `data.uri` is the URI as asked (the spec's field), within a bound.
  return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${clip(uri)}`, { uri: echoedUri(uri) })
}
