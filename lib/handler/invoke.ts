/**
 * Calls a server module handler for a method of the method table and turns whatever
 * happens into a result or a JSON-RPC error. An exception thrown by a
 * `callTool` handler is a tool execution error (`isError: true`, see
 * tool-errors.ts); other handler exceptions except `McpError` are logged and
 * answered with a generic internal error, so no internals leak to the client.
 * Every fault logged names the tool, prompt or resource it is about. A
 * handler that answers synchronously gets a synchronous outcome: no promise,
 * no microtask hop before the response.
 */
import type { FastifyRequest } from 'fastify'
import { InputRequiredSignal } from '../input/client-requests.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { type ModuleMethod, type Target, targetOf } from '../protocol/methods.js'
import { isThenable } from '../common/maybe-promise.js'
import type { HandlerContext, JsonObject, AnyServerModule } from '../server-module/contract.js'
import type { ResultCheck } from './result-validation.js'
import { clip } from '../protocol/describe.js'
import { DEFAULT_TOOL_ERROR_MODE, thrownToolResult, type ToolErrorMode } from './tool-errors.js'
import { emptyResult } from './empty-result.js'

export type Outcome =
  | { ok: true, result: JsonObject }
  | { ok: false, code: number, message: string, data?: unknown }

/** An outcome answered with a JSON-RPC error. */
export type FailedOutcome = Extract<Outcome, { ok: false }>

/** The outcome of a server fault: the client learns nothing of it (the details go to the log). */
export const INTERNAL_ERROR_OUTCOME: FailedOutcome = Object.freeze({ ok: false, code: ErrorCode.InternalError, message: 'Internal error' })

/** The outcome an `McpError` answers: its code, message and data as thrown. */
export function errorOutcome (err: McpError): FailedOutcome {
  return err.data === undefined ? { ok: false, code: err.code, message: err.message } : { ok: false, code: err.code, message: err.message, data: err.data }
}

/** The JSON-RPC error object of a failed outcome. */
export function errorOf (outcome: FailedOutcome): { code: number, message: string, data?: unknown } {
  return outcome.data === undefined ? { code: outcome.code, message: outcome.message } : { code: outcome.code, message: outcome.message, data: outcome.data }
}

/** A step on a list method's outcome for one request: authorization's `filterLists`, the MCP Apps view. */
export type ListFilter = (method: string, outcome: Outcome, request: FastifyRequest, modern: boolean) => Outcome

/**
 * What a fault is about, for log lines: `callTool (tool "add")` (the name or
 * URI as the client sent it, clipped), else the handler's name.
 */
export function faultSubject (entry: ModuleMethod, params: JsonObject): string {
  const name = targetOf(entry, params)
  return name !== undefined ? `${entry.handler} (${(entry.target as Target).kind} "${clip(name)}")` : entry.handler
}

function succeed (result: unknown, entry: ModuleMethod, params: JsonObject, ctx: HandlerContext, check: ResultCheck | undefined): Outcome {
  if (result === undefined || result === null) result = emptyResult(entry.handler)
  if (!isJsonObject(result)) {
    ctx.logger.error({ method: ctx.method, handler: entry.handler }, `MCP handler ${faultSubject(entry, params)} returned a non-object result`)
    return INTERNAL_ERROR_OUTCOME
  }
  if (check !== undefined) {
    const problems = check(ctx.method, ctx.era, result)
    if (problems.length > 0) {
      ctx.logger.error({ method: ctx.method, handler: entry.handler, era: ctx.era, problems }, `MCP handler ${faultSubject(entry, params)} returned a result that does not match the wire schema of ${ctx.method}`)
      return INTERNAL_ERROR_OUTCOME
    }
  }
  return { ok: true, result }
}

/** The outcome of a handler's (or its hook's) exception: `McpError` as thrown, a tool's other throws by `toolErrors`, anything else logged and answered -32603. */
export function fail (err: unknown, entry: ModuleMethod, params: JsonObject, ctx: HandlerContext, toolErrors: ToolErrorMode): Outcome {
  // A modern ctx.elicit() and friends without an answer yet: the endpoint completes the result.
  if (err instanceof InputRequiredSignal) return { ok: true, result: { resultType: 'input_required' } }
  if (err instanceof McpError) return errorOutcome(err)
  if (entry.throwsAsResult === true) return { ok: true, result: thrownToolResult(err, params.name, toolErrors, ctx.logger) }
  ctx.logger.error({ err, method: ctx.method, handler: entry.handler }, `MCP handler ${faultSubject(entry, params)} failed`)
  return INTERNAL_ERROR_OUTCOME
}

export function invokeHandler (
  server: AnyServerModule,
  entry: ModuleMethod,
  params: JsonObject,
  ctx: HandlerContext,
  /** `validate.results`: checks each result against its method's wire schema. */
  check?: ResultCheck,
  /** `toolErrors`: what a tool handler's throw tells the client. */
  toolErrors: ToolErrorMode = DEFAULT_TOOL_ERROR_MODE
): Outcome | Promise<Outcome> {
  const handler = server[entry.handler]
  if (typeof handler !== 'function') {
    return { ok: true, result: { ...entry.fallbackResult } }
  }
  let result: unknown
  try {
    result = handler.call(server, params, ctx)
  } catch (err) {
    return fail(err, entry, params, ctx, toolErrors)
  }
  if (!isThenable(result)) return succeed(result, entry, params, ctx, check)
  return Promise.resolve(result).then((value) => succeed(value, entry, params, ctx, check), (err: unknown) => fail(err, entry, params, ctx, toolErrors))
}
