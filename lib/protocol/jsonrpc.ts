/**
 * JSON-RPC 2.0 message classification: what a POSTed body is (request,
 * notification, response, or invalid), checked once so later code can trust it.
 */
import { ErrorCode } from './mcp-error.js'

export type JsonObject = Record<string, unknown>

export type RequestId = string | number

/**
 * A classified message. Each kind names the fields it has; `meta` is
 * `params._meta` when it is an object, read once here so later steps do not
 * look into the client's params for it again.
 */
export type JsonRpcMessage =
  | { readonly kind: 'request', readonly id: RequestId, readonly method: string, readonly params: JsonObject, readonly meta: JsonObject | undefined }
  | { readonly kind: 'notification', readonly method: string, readonly params: JsonObject, readonly meta: JsonObject | undefined }
  | { readonly kind: 'response' }
  | { readonly kind: 'invalid', readonly id: RequestId | undefined, readonly code: number, readonly message: string }

/**
 * Every kind is one instance of this class, all its fields set in the
 * constructor: one hidden class for every message, so the functions of the
 * request path that read a message's fields stay monomorphic however the
 * requests of a workload mix (object literals of four shapes made them
 * polymorphic, and the client's bodies, of as many shapes as there are
 * methods, megamorphic).
 */
class ClassifiedMessage {
  readonly kind: JsonRpcMessage['kind']
  readonly id: RequestId | undefined
  readonly method: string
  readonly params: JsonObject
  readonly meta: JsonObject | undefined
  readonly code: number
  readonly message: string

  constructor (kind: JsonRpcMessage['kind'], id: RequestId | undefined, method: string, params: JsonObject, meta: JsonObject | undefined, code: number, message: string) {
    this.kind = kind
    this.id = id
    this.method = method
    this.params = params
    this.meta = meta
    this.code = code
    this.message = message
  }
}

export function isJsonObject (value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** MCP request ids are strings or integers (the spec's `RequestId`). */
export function isRequestId (value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value))
}

const EMPTY_PARAMS: JsonObject = Object.freeze({}) as JsonObject

function invalid (id: RequestId | undefined, message: string, code: number = ErrorCode.InvalidRequest): JsonRpcMessage {
  return new ClassifiedMessage('invalid', id, '', EMPTY_PARAMS, undefined, code, message) as JsonRpcMessage
}

const RESPONSE = new ClassifiedMessage('response', undefined, '', EMPTY_PARAMS, undefined, 0, '') as JsonRpcMessage

export function classifyMessage (body: unknown): JsonRpcMessage {
  if (Array.isArray(body)) return invalid(undefined, 'Invalid Request: JSON-RPC batches are not supported')
  if (!isJsonObject(body)) return invalid(undefined, 'Invalid Request: expected a JSON-RPC 2.0 message object')
  const hasId = Object.hasOwn(body, 'id')
  const id = isRequestId(body.id) ? body.id : undefined
  if (body.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: "jsonrpc" must be "2.0"')
  if (hasId && id === undefined) return invalid(undefined, 'Invalid Request: "id" must be a string or an integer')

  if (!Object.hasOwn(body, 'method')) {
    if (id !== undefined && (Object.hasOwn(body, 'result') || Object.hasOwn(body, 'error'))) return RESPONSE
    return invalid(id, 'Invalid Request: "method" is required')
  }
  const { method } = body
  if (typeof method !== 'string' || method.length === 0) return invalid(id, 'Invalid Request: "method" must be a non-empty string')

  let params = EMPTY_PARAMS
  const given = body.params
  if (given !== undefined) {
    if (Array.isArray(given)) return invalid(id, 'Invalid params: MCP params must be an object', ErrorCode.InvalidParams)
    if (!isJsonObject(given)) return invalid(id, 'Invalid Request: "params" must be an object')
    params = given
  }
  const meta = isJsonObject(params._meta) ? params._meta : undefined
  return new ClassifiedMessage(id === undefined ? 'notification' : 'request', id, method, params, meta, 0, '') as JsonRpcMessage
}
