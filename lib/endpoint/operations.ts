/**
 * What runs around MCP operations: the hooks added with
 * `fastify.mcp.addHook` (lib/hooks/) and the server span and duration
 * metric (lib/telemetry/), one immutable pipeline built once by the plugin's
 * ready sequence (`buildPipeline`, called from lib/plugin.ts) and handed over
 * to the eras' `Operations`. With no hook and no telemetry it has no `around`
 * step and `invoke` calls the handler directly, so the request path is the
 * one it was without them.
 *
 * It runs at fixed points: `around` wraps every JSON-RPC request in the
 * dispatcher (the span, then the onRequest hooks); `invoke` serves a
 * handler-served method in its era (preHandler hooks, the handler, then
 * onResult or onError hooks); `workOutcome` gives the step a task's work
 * outcome passes (the same onResult and onError hooks). What the onRequest
 * step learns of a request (the operation as hooks see it, the chains that
 * apply, a hook's answer) is kept in a private per-request slot that only
 * this module reads.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { RequestSlot } from '../common/request-slot.js'
import { type MaybePromise, whenSettled } from '../common/maybe-promise.js'
import { errorOf, errorOutcome, fail, type FailedOutcome, INTERNAL_ERROR_OUTCOME, invokeHandler, type Outcome } from '../handler/invoke.js'
import type { RequestContext } from '../handler/request-context.js'
import { callerOf } from '../handler/caller.js'
import { type PreHandled, leavePreHandler } from '../hooks/pre-handler.js'
import type { HookChains, HookSelector } from '../hooks/registry.js'
import { firstAnswer, observeEach, replaceEach } from '../hooks/run.js'
import type { McpCall, McpOperation } from '../hooks/types.js'
import { isJsonObject, type JsonRpcMessage } from '../protocol/jsonrpc.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { META_PROTOCOL_VERSION } from '../protocol/meta.js'
import { type HandlerName, METHODS, type ModuleMethod, moduleEntry, type Target, targetOf } from '../protocol/methods.js'
import { errorTypeOf, noteErrorType, sendError } from '../response/reply.js'
import type { AnyServerModule, HandlerContext, JsonObject } from '../server-module/contract.js'
import type { ResultCheck } from '../handler/result-validation.js'
import type { ToolErrorMode } from '../handler/tool-errors.js'
import type { McpTelemetry } from '../telemetry/tracing.js'
import { createdTaskOf, type WorkOutcomeStep } from '../tasks/call-plan.js'
import { hookStep } from './hook-faults.js'
import { beforeDeadline, markDispatched } from './request-deadline.js'

type RequestMessage = Extract<JsonRpcMessage, { kind: 'request' }>
type Next = (message: RequestMessage, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined
export type Around = (message: RequestMessage, request: FastifyRequest, reply: FastifyReply, next: Next, isModern: (message: RequestMessage) => boolean) => Promise<FastifyReply> | undefined
/** The HTTP status of a JSON-RPC error in an era (the modern transport fixes a few). */
export type ErrorStatus = (modern: boolean, code: number) => number
export type Invoke = (entry: ModuleMethod, params: JsonObject, ctx: RequestContext) => MaybePromise<Outcome>
/** With authorization: refuses a target a hook chose when the caller lacks a scope it needs (see authorization.ts `checkTarget`). */
export type TargetCheck = (request: FastifyRequest, method: string, params: JsonObject) => Outcome | undefined

/** The span attribute naming what a request acts on, by the kind of its target (the method table's). */
const TRACED_TARGET: Readonly<Record<Target['kind'], 'toolName' | 'promptName' | 'resourceUri' | undefined>> = Object.freeze({
  tool: 'toolName', prompt: 'promptName', resource: 'resourceUri', task: undefined
})

/** What the onRequest step learned of one request, for the steps after it. */
interface Served {
  readonly operation: McpOperation
  readonly hooks: HookChains
  /** An onRequest hook's answer, served in place of the handler. */
  readonly answer: JsonObject | undefined
}

const servedSlot = new RequestSlot<Served>()

function servedOf (request: FastifyRequest): Served | undefined {
  return servedSlot.get(request)
}

/** The steps, built once at ready (`buildPipeline`) and handed over to `Operations`. */
export interface Pipeline {
  readonly around: Around | undefined
  readonly invoke: Invoke
  readonly workOutcome: (request: FastifyRequest) => WorkOutcomeStep | undefined
}

/** What every pipeline calls the handler with, fixed at registration. */
export interface HandlerSettings {
  readonly server: AnyServerModule
  readonly check: ResultCheck | undefined
  readonly toolErrors: ToolErrorMode
  readonly handlerTimeoutMs: number
  /** Handlers that run the preHandler hooks themselves once their arguments are valid (the composition's). */
  readonly validatesArguments: ReadonlySet<HandlerName>
}

const NO_WORK_OUTCOME = (): undefined => undefined

function plainInvoke (settings: HandlerSettings): Invoke {
  return (entry, params, ctx) => invokeHandler(settings.server, entry, params, ctx, settings.check, settings.toolErrors)
}

/** The pipeline before ready, and after it with no hook and no telemetry: the handler alone, so the request path is the one it was without them. */
export function plainPipeline (settings: HandlerSettings): Pipeline {
  return Object.freeze({ around: undefined, invoke: plainInvoke(settings), workOutcome: NO_WORK_OUTCOME })
}

/** The pipeline of the sealed hooks (`hooks`, undefined: none) and the telemetry; built once, at ready. */
export function buildPipeline (settings: HandlerSettings, hooks: HookSelector | undefined, telemetry: McpTelemetry | undefined, errorStatus: ErrorStatus, checkTarget?: TargetCheck): Pipeline {
  if (hooks === undefined && telemetry === undefined) return plainPipeline(settings)
  return Object.freeze({
    around: createAround(hooks, telemetry, errorStatus, settings.handlerTimeoutMs),
    ...createInvoke(plainInvoke(settings), settings, checkTarget, () => telemetry?.active === true)
  })
}

/** Where the eras reach the pipeline: the plain one until the ready sequence hands over the one it built. */
export class Operations {
  readonly settings: HandlerSettings
  #pipeline: Pipeline
  #handedOver = false

  constructor (settings: HandlerSettings) {
    this.settings = settings
    this.#pipeline = plainPipeline(settings)
  }

  /** Takes the pipeline built at ready; once (the hooks are sealed by then). */
  handOver (pipeline: Pipeline): void {
    if (this.#handedOver) throw new Error('the MCP operations pipeline was already handed over')
    this.#handedOver = true
    this.#pipeline = pipeline
  }

  /** Around every JSON-RPC request in the dispatcher; undefined when nothing runs there. */
  get around (): Around | undefined {
    return this.#pipeline.around
  }

  /** Serves a handler-served method: preHandler hooks, the handler, then onResult or onError hooks. */
  invoke (entry: ModuleMethod, params: JsonObject, ctx: RequestContext): MaybePromise<Outcome> {
    return this.#pipeline.invoke(entry, params, ctx)
  }

  /** What the outcome of work a `tools/call` runs as a task passes: the onResult and onError hooks of that call, if any. */
  workOutcome (request: FastifyRequest): WorkOutcomeStep | undefined {
    return this.#pipeline.workOutcome(request)
  }
}

function operationOf (message: RequestMessage, request: FastifyRequest, modern: boolean): McpOperation {
  return {
    method: message.method,
    params: message.params,
    id: message.id,
    era: modern ? 'modern' : 'legacy',
    caller: callerOf(request),
    target: targetOf(METHODS[message.method], message.params),
    request
  }
}

function protocolVersionOf (message: RequestMessage, request: FastifyRequest, modern: boolean): string | undefined {
  const version = modern
    ? (message.meta as JsonObject)[META_PROTOCOL_VERSION]
    : message.method === 'initialize' ? message.params.protocolVersion : request.headers['mcp-protocol-version'] ?? '2025-03-26'
  return typeof version === 'string' ? version : undefined
}

function createAround (select: HookSelector | undefined, telemetry: McpTelemetry | undefined, errorStatus: ErrorStatus, handlerTimeoutMs: number): Around {
  /** An onRequest hook threw: the request is answered with that error (`McpError`), else -32603, logged. */
  function reject (err: unknown, operation: McpOperation, reply: FastifyReply, onError: HookChains['onError']): MaybePromise<FastifyReply> {
    if (!(err instanceof McpError)) operation.request.log.error({ err, method: operation.method }, 'MCP onRequest hook failed')
    const error = errorOf(err instanceof McpError ? errorOutcome(err) : INTERNAL_ERROR_OUTCOME)
    const send = (): FastifyReply => sendError(reply, errorStatus(operation.era === 'modern', error.code), operation.id, error.code, error.message, error.data)
    if (onError === undefined) return send()
    return whenSettled(observeEach(onError, (hook) => hook.fn.call(hook.context, operation, error), reportOnError(operation.request.log)), send)
  }

  function serve (message: RequestMessage, request: FastifyRequest, reply: FastifyReply, next: Next, modern: boolean): MaybePromise<FastifyReply | undefined> {
    const chains = select?.(message.method, message.params)
    if (chains === undefined) return next(message, request, reply)
    const operation = operationOf(message, request, modern)
    const { onRequest, onError } = chains
    const proceed = (answer: JsonObject | undefined): MaybePromise<FastifyReply | undefined> => {
      if (answer !== undefined && METHODS[message.method]?.servedBy !== 'module') {
        return reject(new Error(`an onRequest hook answered ${message.method}, which the endpoint serves itself: hooks may only reject it`), operation, reply, onError)
      }
      servedSlot.set(request, Object.freeze({ operation, hooks: chains, answer }))
      return next(message, request, reply)
    }
    if (onRequest === undefined) return proceed(undefined)
    let answered: MaybePromise<JsonObject | undefined>
    // limits.handlerTimeoutMs runs from here: the hooks' wait, then what is left for the handler (request-deadline.ts).
    markDispatched(request)
    try {
      answered = firstAnswer('onRequest', onRequest, (hook) => hook.fn.call(hook.context, operation))
    } catch (err) {
      return reject(err, operation, reply, onError)
    }
    return answered instanceof Promise ? beforeDeadline(answered, request, handlerTimeoutMs, 'onRequest hook').then(proceed, (err: unknown) => reject(err, operation, reply, onError)) : proceed(answered)
  }

  return function around (message, request, reply, next, isModern) {
    // Without a provider registered (the common case when the API is merely installed), nothing is gathered.
    if (telemetry === undefined || !telemetry.active) return select === undefined ? next(message, request, reply) : settle(serve(message, request, reply, next, isModern(message)), reply)
    const modern = isModern(message)
    const entry = METHODS[message.method]
    const attribute = entry?.target === undefined ? undefined : TRACED_TARGET[entry.target.kind]
    const trace = telemetry.start({
      method: message.method,
      ...(attribute === undefined ? undefined : { [attribute]: targetOf(entry, message.params) }),
      id: message.id,
      protocolVersion: protocolVersionOf(message, request, modern),
      meta: message.meta ?? {}
    })
    if (trace === undefined) return settle(serve(message, request, reply, next, modern), reply)
    // The span's error.type is noted on the request by whatever answers with an error (errorTypeOf).
    let served: MaybePromise<FastifyReply | undefined>
    try {
      served = (telemetry as McpTelemetry).within(trace, () => serve(message, request, reply, next, modern))
    } catch (err) {
      trace.end(String(ErrorCode.InternalError))
      throw err
    }
    if (!(served instanceof Promise)) {
      trace.end(errorTypeOf(request))
      return undefined
    }
    return served.then((answer) => {
      trace.end(errorTypeOf(request))
      return answer ?? reply
    }, (err: unknown) => {
      trace.end(String(ErrorCode.InternalError))
      throw err
    })
  }
}

function settle (served: MaybePromise<FastifyReply | undefined>, reply: FastifyReply): Promise<FastifyReply> | undefined {
  return served instanceof Promise ? served.then((answer) => answer ?? reply) : undefined
}

function reportOnError (log: FastifyBaseLogger): (err: unknown) => void {
  return (err) => log.error({ err }, 'MCP onError hook failed')
}

function createInvoke (invoke: Invoke, { toolErrors, validatesArguments }: HandlerSettings, checkTarget: TargetCheck | undefined, traced: () => boolean): Pick<Pipeline, 'invoke' | 'workOutcome'> {
  /** Runs `step`, turning what it throws or rejects with into the outcome a handler's exception gets. */
  function attempt (step: () => MaybePromise<Outcome>, entry: ModuleMethod, params: JsonObject, ctx: HandlerContext): MaybePromise<Outcome> {
    let outcome: MaybePromise<Outcome>
    try {
      outcome = step()
    } catch (err) {
      return fail(err, entry, params, ctx, toolErrors)
    }
    return outcome instanceof Promise ? outcome.catch((err: unknown) => fail(err, entry, params, ctx, toolErrors)) : outcome
  }

  function callWithPreHandler (hooks: NonNullable<HookChains['preHandler']>, entry: ModuleMethod, params: JsonObject, ctx: RequestContext, operation: McpOperation): MaybePromise<Outcome> {
    const reading = entry.target?.kind === 'resource'
    const given = reading || !isJsonObject(params.arguments) ? {} : params.arguments
    const call: McpCall = { ...operation, method: operation.method as McpCall['method'], arguments: given, uri: reading && typeof params.uri === 'string' ? params.uri : undefined, ctx }
    const runHooks = (): MaybePromise<JsonObject | undefined> => hookStep('preHandler', ctx.logger, () => firstAnswer('preHandler', hooks, (hook) => hook.fn.call(hook.context, call)))
    if (validatesArguments.has(entry.handler)) {
      // A defined tool or prompt runs the hooks itself, once its arguments are valid.
      leavePreHandler(ctx, (args): MaybePromise<PreHandled> => {
        call.arguments = args
        return whenSettled(runHooks(), (answer): PreHandled => answer !== undefined ? { answer } : { args: call.arguments })
      })
      return invoke(entry, params, ctx)
    }
    return attempt(() => whenSettled(runHooks(), (answer): MaybePromise<Outcome> => {
      if (answer !== undefined) return { ok: true, result: answer }
      if (reading && call.uri !== params.uri) return readElsewhere(entry, params, call.uri, ctx)
      return invoke(entry, call.arguments === given ? params : { ...params, arguments: call.arguments }, ctx)
    }), entry, params, ctx)
  }

  /**
   * A preHandler chose another URI to read: it is served as if the client had
   * sent it (the catalogue, else the raw handler, resolves it), once the
   * caller is known to hold the scopes it needs.
   */
  function readElsewhere (entry: ModuleMethod, params: JsonObject, uri: unknown, ctx: RequestContext): MaybePromise<Outcome> {
    if (typeof uri !== 'string' || uri.length === 0) throw new TypeError(`an MCP preHandler hook set call.uri to ${typeof uri === 'string' ? 'an empty string' : typeof uri}: a URI is a non-empty string`)
    const moved = { ...params, uri }
    return checkTarget?.(ctx.request, 'resources/read', moved) ?? invoke(entry, moved, ctx)
  }

  function finish (outcome: Outcome, entry: ModuleMethod, ctx: HandlerContext, operation: McpOperation, note: NoteError, chains: HookChains): MaybePromise<Outcome> {
    const onResult = chains.onResult
    if (outcome.ok && onResult !== undefined && outcome.result.resultType !== 'input_required') {
      const result = outcome.result
      const replaced = attempt(() => whenSettled(
        hookStep('onResult', ctx.logger, () => replaceEach('onResult', onResult, result, (hook, value) => hook.fn.call(hook.context, operation, value))),
        (value): Outcome => ({ ok: true, result: value })), entry, operation.params, ctx)
      return whenSettled(replaced, (final) => final.ok ? noted(final, note) : failed(final, ctx, operation, note, chains))
    }
    return outcome.ok ? noted(outcome, note) : failed(outcome, ctx, operation, note, chains)
  }

  function failed (outcome: FailedOutcome, ctx: HandlerContext, operation: McpOperation, note: NoteError, chains: HookChains): MaybePromise<Outcome> {
    note(String(outcome.code))
    const onError = chains.onError
    if (onError === undefined) return outcome
    const error = errorOf(outcome)
    return whenSettled(observeEach(onError, (hook) => hook.fn.call(hook.context, operation, error), reportOnError(ctx.logger)), () => outcome)
  }

  /**
   * The outcome of a tool's work run as a task passes the hooks as a direct
   * call's would, with the operation and chains of the `tools/call` that
   * created the task and the task's `ctx`. The request's span has ended by
   * then: how the work ended is noted for no span.
   */
  const toolsCall = moduleEntry('tools/call')
  function workOutcome (request: FastifyRequest): WorkOutcomeStep | undefined {
    const served = servedOf(request)
    if (served === undefined || (served.hooks.onResult === undefined && served.hooks.onError === undefined)) return undefined
    const { operation, hooks } = served
    return (outcome, taskCtx) => finish(outcome, toolsCall, taskCtx, operation, IGNORED, hooks)
  }

  function invokeWithHooks (entry: ModuleMethod, params: JsonObject, ctx: RequestContext): MaybePromise<Outcome> {
    const request = ctx.request
    const served = servedOf(request)
    if (served === undefined) {
      // No hook applies: with a span, only how it ended is noted.
      return traced() ? whenSettled(invoke(entry, params, ctx), (o) => noted(o, (type) => noteErrorType(request, type))) : invoke(entry, params, ctx)
    }
    const { operation, hooks, answer } = served
    const note: NoteError = (type) => noteErrorType(request, type)
    let outcome: MaybePromise<Outcome>
    if (answer !== undefined) outcome = { ok: true, result: answer }
    else if (hooks.preHandler !== undefined && entry.preHandler === true) outcome = callWithPreHandler(hooks.preHandler, entry, params, ctx, operation)
    else outcome = invoke(entry, params, ctx)
    return whenSettled(outcome, (o) => {
      // This call created a task and this is its CreateTaskResult: the hooks see the work's outcome instead (workOutcome).
      if (o.ok && o.result.resultType === 'task' && createdTaskOf(request) !== undefined) return o
      return finish(o, entry, ctx, operation, note, hooks)
    })
  }

  return { invoke: invokeWithHooks, workOutcome }
}

/** Notes how an operation ended: on the request (for its span and metric), or nowhere for a task's work. */
type NoteError = (type: string) => void
const IGNORED: NoteError = () => {}

/** A tool's execution error (`isError: true`) is an error of the operation for its span and metric. */
function noted (outcome: Outcome, note: NoteError): Outcome {
  if (outcome.ok) {
    if (outcome.result.isError === true) note('tool_error')
  } else {
    note(String(outcome.code))
  }
  return outcome
}
