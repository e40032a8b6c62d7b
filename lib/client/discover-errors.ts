/**
 * What `discover()` rejects with. Every error is a `DiscoverError` whose
 * `kind` says which failure it is, so callers can switch on one field.
 */

export type DiscoverErrorKind = 'network' | 'timeout' | 'aborted' | 'http' | 'json-rpc' | 'invalid-result'

export abstract class DiscoverError extends Error {
  abstract readonly kind: DiscoverErrorKind
  /** The MCP endpoint that was being discovered. */
  readonly url: string

  constructor (url: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.url = url
  }
}

/** The request never got an HTTP answer (DNS, refused connection, reset, TLS, ...). */
export class DiscoverNetworkError extends DiscoverError {
  readonly kind = 'network' as const
  override readonly name = 'DiscoverNetworkError'
}

/** The whole discovery (every request it made) took longer than `timeoutMs`. */
export class DiscoverTimeoutError extends DiscoverError {
  readonly kind = 'timeout' as const
  override readonly name = 'DiscoverTimeoutError'
  readonly timeoutMs: number

  constructor (url: string, timeoutMs: number) {
    super(url, `discovery of ${url} timed out after ${timeoutMs} ms`)
    this.timeoutMs = timeoutMs
  }
}

/** The caller's `AbortSignal` fired; `cause` is the signal's reason. */
export class DiscoverAbortError extends DiscoverError {
  readonly kind = 'aborted' as const
  override readonly name = 'DiscoverAbortError'
}

/** An HTTP answer without a usable JSON-RPC response (5xx, an HTML page, an empty 200, a body too large). */
export class DiscoverHttpError extends DiscoverError {
  readonly kind = 'http' as const
  override readonly name = 'DiscoverHttpError'
  readonly status: number
  /** The JSON-RPC method of the request that got this answer. */
  readonly method: string
  /** The start of the response body, for diagnostics. */
  readonly body: string

  constructor (url: string, method: string, status: number, message: string, body = '') {
    super(url, message)
    this.method = method
    this.status = status
    this.body = body
  }
}

/**
 * A JSON-RPC error response. `era` says what it proved about the server:
 * `'modern'` for a recognized 2026-07-28 error (so no legacy fallback was
 * tried), `'legacy'` when `initialize` itself failed, null otherwise.
 */
export class DiscoverJsonRpcError extends DiscoverError {
  readonly kind = 'json-rpc' as const
  override readonly name = 'DiscoverJsonRpcError'
  readonly code: number
  readonly data: unknown
  readonly status: number
  readonly method: string
  readonly era: 'modern' | 'legacy' | null

  constructor (url: string, method: string, status: number, error: { code: number, message: string, data?: unknown }, era: 'modern' | 'legacy' | null) {
    super(url, `${method} failed with JSON-RPC error ${error.code}: ${error.message}`)
    this.code = error.code
    this.data = error.data
    this.status = status
    this.method = method
    this.era = era
  }
}

/**
 * A result that is not a valid DiscoverResult (or InitializeResult). Never a
 * reason to switch eras: the server answered, wrongly.
 */
export class DiscoverInvalidResultError extends DiscoverError {
  readonly kind = 'invalid-result' as const
  override readonly name = 'DiscoverInvalidResultError'
  readonly reason: 'invalid_discover_result' | 'invalid_initialize_result'
  /** The result as received. */
  readonly result: unknown

  constructor (url: string, reason: 'invalid_discover_result' | 'invalid_initialize_result', message: string, result: unknown) {
    super(url, `${reason}: ${message}`)
    this.reason = reason
    this.result = result
  }
}
