/**
 * Writes JSON-RPC response bodies. Every fixed part (initialize and discover
 * results, the modern `_meta.serverInfo`, static cache hints, error objects)
 * is serialised with fast-json-stringify compiled from the TypeBox wire
 * schemas, once at registration where it never changes; per request only the
 * id and the handler's result are spliced in. Handler results are open
 * objects, which JSON.stringify serialises faster than a schema could.
 */
import type { TSchema } from '@sinclair/typebox'
import fastJsonStringify from 'fast-json-stringify'
import { isDeepStrictEqual } from 'node:util'
import { jsonOf } from './frozen-json.js'
import type { RequestId } from './jsonrpc.js'
import { JsonRpcError } from './schemas.js'

/**
 * A result serialised ahead of time: its JSON text, and the encoded bytes of
 * the response from `,"result":` to the end, so a response costs only the
 * encoding of its id.
 */
export interface PreparedResult {
  readonly json: string
  readonly tail: Buffer
}

const serializeError = fastJsonStringify(JsonRpcError)

/** Prepares a result from its JSON text. */
export function prepareJson (json: string): PreparedResult {
  return Object.freeze({ json, tail: Buffer.from(',"result":' + json + '}') })
}

/**
 * Serialises a fixed value with its schema. The round trip is checked once
 * here, so a schema that would drop or alter a field fails registration
 * instead of silently changing what clients see.
 */
export function prepareResult (schema: TSchema, result: unknown): PreparedResult {
  const json = fastJsonStringify(schema)(result)
  if (!isDeepStrictEqual(JSON.parse(json), JSON.parse(JSON.stringify(result)))) {
    throw new Error('fastify-mcp-capabilities: the result schema does not serialise this result faithfully')
  }
  return prepareJson(json)
}

/** A response around a result already serialised as JSON text. */
export function resultJsonResponse (id: RequestId, resultJson: string): string {
  return '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":' + resultJson + '}'
}

export function preparedResponse (id: RequestId, prepared: PreparedResult): Buffer {
  const head = '{"jsonrpc":"2.0","id":' + JSON.stringify(id)
  const headLength = Buffer.byteLength(head)
  const out = Buffer.allocUnsafe(headLength + prepared.tail.length)
  out.write(head, 0, headLength, 'utf8')
  prepared.tail.copy(out, headLength)
  return out
}

export function resultResponse (id: RequestId, result: object): string {
  return resultJsonResponse(id, jsonOf(result))
}

export function errorResponse (id: RequestId | undefined, code: number, message: string, data?: unknown): string {
  const error = serializeError(data === undefined ? { code, message } : { code, message, data })
  return id === undefined
    ? '{"jsonrpc":"2.0","error":' + error + '}'
    : '{"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"error":' + error + '}'
}

/**
 * Adds fields to a result object's JSON text without copying the object:
 * `{"a":1}` + `"b":2` gives `{"a":1,"b":2}`. Undefined when the text is not
 * an object (a `toJSON` surprise), so the caller can take the slow path.
 */
export function appendFields (objectJson: string, fields: string): string | undefined {
  if (objectJson.charCodeAt(0) !== 123 /* { */) return undefined
  return objectJson.length === 2 ? '{' + fields + '}' : objectJson.slice(0, -1) + ',' + fields + '}'
}
