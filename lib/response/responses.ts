/**
 * Writes JSON-RPC response bodies. Every fixed part (initialize and discover
 * results, the modern `_meta.serverInfo`, static cache hints) is serialised
 * once at registration; per request only the id and the handler's result (or
 * error object) are serialised, with JSON.stringify: results are open
 * objects, and nothing schema-compiled beats it on them. Nothing is compiled
 * at import or registration either (fast-json-stringify and the Ajv it loads
 * cost ~4 MB of heap at import and ~3 MB at registration, for values
 * serialised once), which also keeps the startup heap small.
 */
import { jsonBytesOf, jsonOf } from './frozen-json.js'
import type { RequestId } from '../protocol/jsonrpc.js'
import { BoundedMemo, PairMemo } from '../common/bounded-memo.js'

/**
 * A result serialised ahead of time: its JSON text, the encoded bytes of the
 * response from `,"result":` to the end, so a response costs only the
 * encoding of its id, and the whole responses to the ids it answered last.
 */
export interface PreparedResult {
  readonly json: string
  readonly tail: Buffer
  readonly byId: BoundedMemo<RequestId, Buffer>
}

/**
 * Whole responses kept per prepared result. Clients reuse small ids (each new
 * client starts its numbering again, a gateway probing `server/discover` sends
 * the same one), so a repeated id costs no allocation or copy at all. Bounded
 * in count and bytes, so a large result keeps few copies or none.
 */
const RESPONSES_PER_RESULT = 16
const KEPT_BYTES_PER_RESULT = 256 * 1024
const MAX_KEPT_ID_LENGTH = 40
/** Bytes of the longest response head kept: `{"jsonrpc":"2.0","id":` and an id of MAX_KEPT_ID_LENGTH characters (3 bytes each at most). */
const MAX_KEPT_HEAD_BYTES = 22 + 3 * MAX_KEPT_ID_LENGTH

function prepareMember (member: 'result' | 'error', json: string): PreparedResult {
  const tail = Buffer.from(',"' + member + '":' + json + '}')
  const room = Math.min(RESPONSES_PER_RESULT, Math.floor(KEPT_BYTES_PER_RESULT / (MAX_KEPT_HEAD_BYTES + tail.length)))
  // A full set starts over, so ids nobody repeats cannot crowd out those that are.
  return Object.freeze({ json, tail, byId: new BoundedMemo<RequestId, Buffer>(room, 'restart') })
}

/** Prepares a result from its JSON text. */
export function prepareJson (json: string): PreparedResult {
  return prepareMember('result', json)
}

/** Serialises a fixed value once (its shape is checked by its TypeBox static type where it is built). */
export function prepareResult (result: object): PreparedResult {
  return prepareJson(JSON.stringify(result))
}

/**
 * The JSON text of a request id. A number (a safe integer, isRequestId) is
 * its own `String`, which V8 keeps cached for small integers:
 * no JSON.stringify call, whose set-up costs more than the id itself.
 */
function idJson (id: RequestId): string {
  return typeof id === 'number' ? String(id) : JSON.stringify(id)
}

/** A response around a result already serialised as JSON text. */
export function resultJsonResponse (id: RequestId, resultJson: string): string {
  return '{"jsonrpc":"2.0","id":' + idJson(id) + ',"result":' + resultJson + '}'
}

/**
 * The response bytes for `id`. The returned Buffer may be shared with other
 * responses to the same id: it is sent, never modified.
 */
export function preparedResponse (id: RequestId, prepared: PreparedResult): Buffer {
  const kept = prepared.byId.get(id)
  if (kept !== undefined) return kept
  const idText = idJson(id)
  const head = '{"jsonrpc":"2.0","id":' + idText
  // A numeric id keeps the head ASCII: its length is its byte length, and latin1 writes it fastest.
  const ascii = typeof id === 'number'
  const headLength = ascii ? head.length : Buffer.byteLength(head)
  const out = Buffer.allocUnsafe(headLength + prepared.tail.length)
  out.write(head, 0, headLength, ascii ? 'latin1' : 'utf8')
  prepared.tail.copy(out, headLength)
  if (idText.length <= MAX_KEPT_ID_LENGTH) prepared.byId.set(id, out)
  return out
}

/** The response to `id` carrying `result`: its preset bytes copied once when it has them (jsonBytesOf), else its JSON text. */
export function resultResponse (id: RequestId, result: object): string | Buffer {
  const parts = jsonBytesOf(result)
  if (parts !== undefined) return partsResponse(id, resultParts(parts, ''))
  return resultJsonResponse(id, objectJson(result))
}

const RESULT_MEMBER = Buffer.from(',"result":')
const CLOSE_RESPONSE = Buffer.from('}')

/**
 * The tail of a response, from `,"result":` to the end, around a result
 * given as the UTF-8 parts of its JSON object text (presetJsonBytes), with
 * `fields` (JSON members, `"a":1,"b":2`) added at the end of the result.
 * The parts are shared, not copied.
 */
export function resultParts (parts: readonly Buffer[], fields: string): readonly Buffer[] {
  if (fields === '') return [RESULT_MEMBER, ...parts, CLOSE_RESPONSE]
  const last = parts[parts.length - 1] as Buffer
  return [RESULT_MEMBER, ...parts.slice(0, -1), last.subarray(0, last.length - 1), Buffer.from(',' + fields + '}}')]
}

/** The response bytes for `id` with a tail made by resultParts: one copy of the parts, nothing serialised. */
export function partsResponse (id: RequestId, tail: readonly Buffer[]): Buffer {
  const head = '{"jsonrpc":"2.0","id":' + idJson(id)
  const headLength = Buffer.byteLength(head)
  let length = headLength
  for (const part of tail) length += part.length
  const out = Buffer.allocUnsafe(length)
  out.write(head, 0, headLength, 'utf8')
  let at = headLength
  for (const part of tail) at += part.copy(out, at)
  return out
}

/**
 * The JSON text of a handler's result, which must still be an object after
 * `toJSON`. Throws on anything JSON cannot carry (a BigInt, a cycle, a getter
 * that throws, text longer than V8 allows) and on a `toJSON` that returns
 * `undefined`, a primitive or an array: callers answer -32603 (issue 11).
 */
export function objectJson (result: object): string {
  const json: string | undefined = jsonOf(result)
  if (typeof json !== 'string' || json.charCodeAt(0) !== 123 /* { */) throw new TypeError('the handler result does not serialise to a JSON object')
  return json
}

/** The -32603 answer to a request whose handler output could not be serialised (the fault is logged by the caller). */
export function internalErrorResponse (id: RequestId | undefined): string {
  return errorResponse(id, -32603, 'Internal error')
}

/**
 * The endpoint's own rejections without data, prepared per code and message:
 * a client that makes a mistake (a header that disagrees with the body, say)
 * tends to make it again, so a repeated rejection costs no more than a
 * discover. Bounded. (Handler errors, whose messages vary, are not kept.)
 */
const preparedErrors = new PairMemo(32, (code: number, message: string): PreparedResult =>
  prepareMember('error', JSON.stringify({ code, message })))
/** Longer messages are answered but not kept, so the memo stays small in bytes, not only in count. */
const MAX_PREPARED_MESSAGE_CHARS = 512

/** A rejection's response as bytes to send: prepared when it carries an id and no data. */
export function errorResponseBody (id: RequestId | undefined, code: number, message: string, data?: unknown): string | Buffer {
  return id !== undefined && data === undefined && message.length <= MAX_PREPARED_MESSAGE_CHARS
    ? preparedResponse(id, preparedErrors.get(code, message))
    : errorResponse(id, code, message, data)
}

export function errorResponse (id: RequestId | undefined, code: number, message: string, data?: unknown): string {
  const error = JSON.stringify(data === undefined ? { code, message } : { code, message, data })
  return id === undefined
    ? '{"jsonrpc":"2.0","error":' + error + '}'
    : '{"jsonrpc":"2.0","id":' + idJson(id) + ',"error":' + error + '}'
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
