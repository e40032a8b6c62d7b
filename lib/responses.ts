/**
 * Writes JSON-RPC response bodies. Results that never change (initialize,
 * discover) are serialised once at registration; per request only the id is
 * spliced in.
 */
import type { RequestId } from './jsonrpc.js'

/** A result serialised ahead of time, ready to be wrapped around any id. */
export interface PreparedResult {
  readonly json: string
}

export function prepareResult (result: unknown): PreparedResult {
  return Object.freeze({ json: JSON.stringify(result) })
}

export function preparedResponse (id: RequestId, prepared: PreparedResult): string {
  return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + prepared.json + '}'
}

export function resultResponse (id: RequestId, result: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result })
}

export function errorResponse (id: RequestId | undefined, code: number, message: string, data?: unknown): string {
  const error: { code: number, message: string, data?: unknown } = { code, message }
  if (data !== undefined) error.data = data
  return JSON.stringify(id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error })
}
