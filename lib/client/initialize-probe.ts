/**
 * The legacy fallback: the `initialize` handshake of protocol versions
 * 2024-11-05..2025-11-25 over Streamable HTTP, then
 * `notifications/initialized`, then (when the server opened a session) a
 * DELETE so a sessionful server does not keep state for a one-off probe.
 */
import { parseImplementation } from '../protocol/discover-result.js'
import type { ServerInfo } from '../protocol/discover-result.js'
import { DiscoverHttpError, DiscoverInvalidResultError, DiscoverJsonRpcError } from './discover-errors.js'
import { type Channel, exchange, postHeaders, request } from './exchange.js'

export interface LegacyInitializeResult {
  /** The version the server chose (it may differ from the one offered). */
  protocolVersion: string
  capabilities: Record<string, unknown>
  serverInfo: ServerInfo | null
  instructions: string | null
  /** The whole `initialize` result as received. */
  raw: Record<string, unknown>
}

export interface InitializeOptions extends Channel {
  /** The caller's headers (credentials and the like). */
  headers: Headers
  protocolVersion: string
  clientInfo: { name: string, version: string, [key: string]: unknown }
  clientCapabilities: Record<string, unknown>
}

export async function initialize (options: InitializeOptions): Promise<LegacyInitializeResult> {
  const { url, signal } = options
  const headers = postHeaders(options.headers)
  // No MCP-Protocol-Version on initialize: the version is what is being negotiated.
  headers.delete('mcp-protocol-version')
  headers.delete('mcp-method')

  const answer = await request(options, headers, 'initialize', {
    protocolVersion: options.protocolVersion,
    capabilities: options.clientCapabilities,
    clientInfo: options.clientInfo
  })

  const { response, status } = answer
  if (response === null) {
    throw new DiscoverHttpError(url, 'initialize', status, `initialize answered HTTP ${status} without a JSON-RPC response`, answer.bodySnippet)
  }
  if (response.kind === 'error') throw new DiscoverJsonRpcError(url, 'initialize', status, response.error, 'legacy')
  if (status < 200 || status >= 300) {
    throw new DiscoverHttpError(url, 'initialize', status, `initialize answered HTTP ${status}`, answer.bodySnippet)
  }
  const result = readInitializeResult(url, response.result)

  // Complete the handshake; a server that rejects the notification has still told us what it is.
  const sessionId = answer.headers.get('mcp-session-id')
  const follow = new Headers(headers)
  follow.set('mcp-protocol-version', result.protocolVersion)
  if (sessionId !== null) follow.set('mcp-session-id', sessionId)
  await exchange(options, follow, { jsonrpc: '2.0', method: 'notifications/initialized' }).catch(() => {})
  if (sessionId !== null) {
    await options.fetch(url, { method: 'DELETE', headers: follow, signal })
      .then(async res => { await res.body?.cancel() })
      .catch(() => {})
  }
  return result
}

function readInitializeResult (url: string, raw: unknown): LegacyInitializeResult {
  const invalid = (message: string): DiscoverInvalidResultError =>
    new DiscoverInvalidResultError(url, 'invalid_initialize_result', message, raw)
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid('the result is not an object')
  const r = raw as Record<string, unknown>
  if (typeof r.protocolVersion !== 'string') throw invalid('protocolVersion must be a string')
  const capabilities = r.capabilities
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities)) {
    throw invalid('capabilities must be an object')
  }
  return {
    protocolVersion: r.protocolVersion,
    capabilities: capabilities as Record<string, unknown>,
    serverInfo: parseImplementation(r.serverInfo),
    instructions: typeof r.instructions === 'string' ? r.instructions : null,
    raw: r
  }
}
