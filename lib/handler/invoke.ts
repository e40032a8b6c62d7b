/**
 * Calls a server module handler for a method of the method table and turns whatever
 * happens into a result or a JSON-RPC error. Handler exceptions other than
 * `McpError` are logged and answered with a generic internal error, so no
 * internals leak to the client. A handler that answers synchronously gets a
 * synchronous outcome: no promise, no microtask hop before the response.
 */
import { InputRequiredSignal } from '../input/client-requests.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { ModuleMethod } from '../protocol/methods.js'
import { isThenable } from '../common/maybe-promise.js'
import type { HandlerContext, JsonObject, AnyServerModule } from '../server-module/contract.js'
import type { ResultCheck } from './result-validation.js'

export type Outcome =
  | { ok: true, result: JsonObject }
  | { ok: false, code: number, message: string, data?: unknown }

function succeed (result: unknown, entry: ModuleMethod, ctx: HandlerContext, check: ResultCheck | undefined): Outcome {
  if (result === undefined || result === null) result = {}
  if (!isJsonObject(result)) {
    ctx.logger.error({ method: ctx.method, handler: entry.handler }, 'MCP handler returned a non-object result')
    return { ok: false, code: ErrorCode.InternalError, message: 'Internal error' }
  }
  if (check !== undefined) {
    const problems = check(ctx.method, ctx.era, result)
    if (problems.length > 0) {
      ctx.logger.error({ method: ctx.method, handler: entry.handler, era: ctx.era, problems }, 'MCP handler result does not match the wire schema of its method')
      return { ok: false, code: ErrorCode.InternalError, message: 'Internal error' }
    }
  }
  return { ok: true, result }
}

/** The outcome of a handler's (or its hook's) exception: `McpError` as thrown, anything else logged and answered -32603. */
export function fail (err: unknown, entry: ModuleMethod, ctx: HandlerContext): Outcome {
  // A modern ctx.elicit() and friends without an answer yet: the endpoint completes the result.
  if (err instanceof InputRequiredSignal) return { ok: true, result: { resultType: 'input_required' } }
  if (err instanceof McpError) {
    return err.data === undefined
      ? { ok: false, code: err.code, message: err.message }
      : { ok: false, code: err.code, message: err.message, data: err.data }
  }
  ctx.logger.error({ err, method: ctx.method, handler: entry.handler }, 'MCP handler failed')
  return { ok: false, code: ErrorCode.InternalError, message: 'Internal error' }
}

export function invokeHandler (
  server: AnyServerModule,
  entry: ModuleMethod,
  params: JsonObject,
  ctx: HandlerContext,
  /** `validateResults`: checks each result against its method's wire schema. */
  check?: ResultCheck
): Outcome | Promise<Outcome> {
  const handler = server[entry.handler]
  if (typeof handler !== 'function') {
    return { ok: true, result: { ...entry.fallbackResult } }
  }
  let result: unknown
  try {
    result = handler.call(server, params, ctx)
  } catch (err) {
    return fail(err, entry, ctx)
  }
  if (!isThenable(result)) return succeed(result, entry, ctx, check)
  return Promise.resolve(result).then((value) => succeed(value, entry, ctx, check), (err: unknown) => fail(err, entry, ctx))
}
