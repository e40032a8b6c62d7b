/**
 * JSON-RPC 2.0 message classification: what a POSTed body is (request,
 * notification, response, or invalid), checked once so later code can trust it.
 */
import { ErrorCode } from './mcp-error.js'

export type JsonObject = Record<string, unknown>

export type RequestId = string | number

export type JsonRpcMessage =
  | { kind: 'request', id: RequestId, method: string, params: JsonObject }
  | { kind: 'notification', method: string, params: JsonObject }
  | { kind: 'response' }
  | { kind: 'invalid', id: RequestId | undefined, code: number, message: string }

export function isJsonObject (value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** MCP request ids are strings or integers (the spec's `RequestId`). */
export function isRequestId (value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))
}

const EMPTY_PARAMS: JsonObject = Object.freeze({}) as JsonObject

function invalid (id: RequestId | undefined, message: string, code: number = ErrorCode.InvalidRequest): JsonRpcMessage {
  return { kind: 'invalid', id, code, message }
}

export function classifyMessage (body: unknown): JsonRpcMessage {
  if (Array.isArray(body)) return invalid(undefined, 'Invalid Request: JSON-RPC batches are not supported')
  if (!isJsonObject(body)) return invalid(undefined, 'Invalid Request: expected a JSON-RPC 2.0 message object')
  const hasId = Object.hasOwn(body, 'id')
  const id = isRequestId(body.id) ? body.id : undefined
  if (body.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"')
  if (hasId && id === undefined) return invalid(undefined, 'Invalid Request: "id" must be a string or an integer')

  if (!Object.hasOwn(body, 'method')) {
    if (id !== undefined && (Object.hasOwn(body, 'result') || Object.hasOwn(body, 'error'))) return { kind: 'response' }
    return invalid(id, 'Invalid Request: "method" is required')
  }
  const { method } = body
  if (typeof method !== 'string' || method.length === 0) return invalid(id, 'Invalid Request: "method" must be a non-empty string')

  let params = EMPTY_PARAMS
  if (body.params !== undefined) {
    if (Array.isArray(body.params)) return invalid(id, 'Invalid params: MCP params must be an object', ErrorCode.InvalidParams)
    if (!isJsonObject(body.params)) return invalid(id, 'Invalid Request: "params" must be an object')
    params = body.params
  }
  return id === undefined ? { kind: 'notification', method, params } : { kind: 'request', id, method, params }
}
