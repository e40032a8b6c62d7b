/**
 * Protocol errors: what a handler throws to answer a request with a JSON-RPC
 * error, and the codes the endpoint itself uses.
 */

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
  UnsupportedProtocolVersion: -32022
} as const)

export type ErrorCodeValue = typeof ErrorCode[keyof typeof ErrorCode]

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
