/**
 * What a handler's `undefined` or `null` answers. Methods whose result has
 * no required member answer `{}`; a tool answers a `CallToolResult` with no
 * content, since `content` is required (`{}` is not a valid result), the
 * same in both eras and for work run as a task.
 */
import type { HandlerName } from '../protocol/methods.js'
import type { JsonObject } from '../protocol/jsonrpc.js'

/** The result of a handler of `handler` that returned nothing (a fresh object: results are stamped on their way out). */
export function emptyResult (handler: HandlerName): JsonObject {
  return handler === 'callTool' ? { content: [] } : {}
}

/** A tool's value, or the empty `CallToolResult` when it is `undefined` or `null`. */
export function toolResultOrEmpty (value: unknown): unknown {
  return value === undefined || value === null ? emptyResult('callTool') : value
}
