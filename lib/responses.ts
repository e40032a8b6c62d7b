/**
 * Writes JSON-RPC response bodies with serialisers compiled from the TypeBox
 * wire schemas (fast-json-stringify, as Fastify's own response serialiser).
 * Results that never change (initialize, discover) are serialised once at
 * registration; per request only the id is spliced in.
 */
import type { TSchema } from '@sinclair/typebox'
import fastJsonStringify from 'fast-json-stringify'
import { isDeepStrictEqual } from 'node:util'
import type { RequestId } from './jsonrpc.js'
import { ErrorResponse, JsonRpcResultResponse } from './schemas.js'

/** A result serialised ahead of time, ready to be wrapped around any id. */
export interface PreparedResult {
  readonly json: string
}

const serializeResultResponse = fastJsonStringify(JsonRpcResultResponse)
const serializeErrorResponse = fastJsonStringify(ErrorResponse)

/**
 * Serialises a fixed result with its schema. The round trip is checked once
 * here, so a schema that would drop or alter a field fails registration
 * instead of silently changing what clients see.
 */
export function prepareResult (schema: TSchema, result: unknown): PreparedResult {
  const json = fastJsonStringify(schema)(result)
  if (!isDeepStrictEqual(JSON.parse(json), JSON.parse(JSON.stringify(result)))) {
    throw new Error('fastify-mcp-capabilities: the result schema does not serialise this result faithfully')
  }
  return Object.freeze({ json })
}

export function preparedResponse (id: RequestId, prepared: PreparedResult): string {
  return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + prepared.json + '}'
}

export function resultResponse (id: RequestId, result: unknown): string {
  return serializeResultResponse({ jsonrpc: '2.0', id, result })
}

export function errorResponse (id: RequestId | undefined, code: number, message: string, data?: unknown): string {
  const error: { code: number, message: string, data?: unknown } = { code, message }
  if (data !== undefined) error.data = data
  return serializeErrorResponse(id === undefined ? { jsonrpc: '2.0', error } : { jsonrpc: '2.0', id, error })
}
