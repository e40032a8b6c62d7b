/**
 * What the endpoint learns about one request and later steps read: who the
 * verified caller is (set by the authorization hook), the caller identity
 * that owns caller-bound state, and, for a modern `tools/call` while the
 * tasks extension is served, the tasks service and the params `runAsTask`
 * reads. One object per request, in the `mcpScope` slot that
 * `declareRequestScope` declares (null until a step needs it, as
 * @fastify/rate-limit and @fastify/cookie declare theirs); a handler reaches
 * it through its context (`ctx.request`). Nothing about a request is kept
 * anywhere else, so it goes when the request goes.
 */
import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { VerifiedCaller } from '../auth/verified-token.js'
import type { AuthInfo } from '../server-module/auth-info.js'
import type { McpOperation } from '../hooks/types.js'
import type { HookChains } from '../hooks/registry.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import type { MaybePromise } from '../common/maybe-promise.js'
import type { Outcome } from './invoke.js'

/**
 * What a task's work ended with passes this before the task keeps it: the
 * endpoint's onResult and onError hooks, run with the `ctx` of the task.
 */
export type WorkOutcomeStep = (outcome: Outcome, ctx: HandlerContext) => MaybePromise<Outcome>
/** Makes the step for the request `scope` serves (one function for every request: nothing is made for a call that makes no task). */
export type WorkOutcomeHooks = (scope: RequestScope) => WorkOutcomeStep

/**
 * Turns what a tool's work returns into the tool's result, as a direct call
 * of that tool would (a defined tool's shaping: a string becomes a text
 * block; with `output`, the value is validated and becomes
 * `structuredContent`). Throws (an `McpError`, -32603, logged) when the value
 * is not what the tool declares.
 */
export type WorkResultStep = (value: unknown, ctx: HandlerContext) => MaybePromise<JsonObject>

/** What `runAsTask` needs of the endpoint's tasks service (lib/tasks/service.ts). */
export interface TaskHost {
  /** Heap bytes of its request a task may keep, estimated (`tasks.maxArgumentBytes`). */
  readonly maxArgumentBytes: number
  /** Stores a task and starts `work` in it; undefined when the store had no room and the task is not required. */
  createTask (ctx: HandlerContext, work: (ctx: HandlerContext) => unknown, required: boolean): Promise<JsonObject | undefined>
  /** Fails a task whose `CreateTaskResult` never reached its client (the call that created it answered something else). */
  abandon (taskId: string, request: FastifyRequest): void
}

export class RequestScope {
  /** The verified token's caller, with authorization (set once, by its `onRequest` hook). */
  verified: VerifiedCaller | undefined = undefined
  /** Set while serving a modern `tools/call` with the tasks extension on: where `runAsTask` creates the task. */
  tasks: TaskHost | undefined = undefined
  /** The JSON-RPC params of that call, as parsed once. */
  params: JsonObject | undefined = undefined
  /** `callerOf`, computed once. */
  caller: string | undefined = undefined
  /** With MCP hooks: the request as hooks see it (made once, before the onRequest hooks). */
  operation: McpOperation | undefined = undefined
  /**
   * @internal
   * With onResult or onError hooks, while serving a `tools/call`: what the
   * outcome of work run as a task passes. `createTask` takes it (and leaves
   * undefined), which also tells the hooks the result is a `CreateTaskResult`.
   */
  workOutcome: WorkOutcomeHooks | undefined = undefined
  /**
   * @internal
   * Left by a defined tool (one step per tool, made when it is defined) while
   * serving a call that may create a task: what the value of work run as a
   * task passes first, before `workOutcome`. `createTask` takes it.
   */
  workResult: WorkResultStep | undefined = undefined
  /** The id of the task `runAsTask` created for this call: the call's answer must be its `CreateTaskResult`, else the task is failed. */
  createdTask: string | undefined = undefined
  /** @internal With MCP hooks: the chains that apply to this request (chosen with `operation`). */
  hooks: HookChains | undefined = undefined
  /** An onRequest hook's answer, served in place of the handler. */
  answer: JsonObject | undefined = undefined
  /** How the request failed, for its span and duration metric: a JSON-RPC error code, or `tool_error`. */
  errorType: string | undefined = undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    /** fastify-mcp-capabilities' per-request scope on the MCP endpoint's routes (null until used). */
    mcpScope: RequestScope | null
  }
}

/** Declares the one per-request slot, up front so request objects keep one shape; filled on first use. */
export function declareRequestScope (fastify: FastifyInstance): void {
  fastify.decorateRequest('mcpScope', null)
}

/** The request's scope, made on first use. */
export function scopeOf (request: FastifyRequest): RequestScope {
  return request.mcpScope ?? (request.mcpScope = new RequestScope())
}

/**
 * Who is calling: the one identity that owns caller-bound state (tasks,
 * `requestState`, private cache entries, legacy answers). The authenticated
 * principal when authorization verified one; otherwise a digest of the
 * `Authorization` header, so that state never crosses credentials; otherwise
 * `'anonymous'`.
 */
export function callerOf (request: FastifyRequest): string {
  const scope = scopeOf(request)
  return scope.caller ?? (scope.caller = identify(request, scope.verified))
}

function identify (request: FastifyRequest, verified: VerifiedCaller | undefined): string {
  if (verified?.principal !== undefined) return verified.principal
  const value = request.headers.authorization
  if (typeof value !== 'string' || value.length === 0) return 'anonymous'
  return 'sha256:' + createHash('sha256').update(value).digest('base64url')
}

/** The verified caller of an authorized request; undefined without authorization. */
export function verifiedCallerOf (request: FastifyRequest): VerifiedCaller | undefined {
  return request.mcpScope?.verified
}

/** The verified token of an authorized request (in handlers: `ctx.auth`), undefined without authorization. */
export function authInfoOf (request: FastifyRequest): AuthInfo | undefined {
  return request.mcpScope?.verified?.info
}
