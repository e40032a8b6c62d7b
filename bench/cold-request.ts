/**
 * The `tools/call` request of each era that bench/cold-start.ts and
 * bench/cold-phases.ts send (not imported by the servers they start, so it
 * adds nothing to what those load).
 */
import { LEGACY_VERSION, MODERN_VERSION } from './scenarios.js'
import { COLD_CALL } from './cold-start-catalog.js'

export function coldRequestOf (era: 'legacy' | 'modern'): { headers: Record<string, string>, body: string } {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const params: Record<string, unknown> = { name: COLD_CALL.name, arguments: COLD_CALL.arguments }
  if (era === 'legacy') {
    headers['mcp-protocol-version'] = LEGACY_VERSION
  } else {
    Object.assign(headers, { 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': COLD_CALL.name })
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }
    }
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params }) }
}
