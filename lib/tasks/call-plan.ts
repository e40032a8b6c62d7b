/**
 * What `runAsTask` reads for the modern `tools/call` it serves: one
 * immutable plan per call, made by the era handler before the tool runs
 * (only when the endpoint serves the tasks extension), kept in a private
 * per-request slot declared with `decorateRequest`. Beside it, the one thing
 * running the call learns: the id of the task it created, which the era
 * handler checks against the answer (a task whose `CreateTaskResult` is not
 * the answer would run unseen) and the outcome hooks read (they see the
 * work's outcome, not the `CreateTaskResult`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { MaybePromise } from '../common/maybe-promise.js'
import type { Outcome } from '../handler/invoke.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'

/**
 * Turns what a tool's work returns into the tool's result, as a direct call
 * of that tool would (a defined tool's shaping: a string becomes a text
 * block; with `output`, the value is validated and becomes
 * `structuredContent`). Throws (an `McpError`, -32603, logged) when the value
 * is not what the tool declares.
 */
export type WorkResultStep = (value: unknown, ctx: HandlerContext) => MaybePromise<JsonObject>

/**
 * What a task's work ended with passes this before the task keeps it: the
 * endpoint's onResult and onError hooks, run with the `ctx` of the task.
 */
export type WorkOutcomeStep = (outcome: Outcome, ctx: HandlerContext) => MaybePromise<Outcome>

/** What `runAsTask` needs of the endpoint's tasks service (lib/tasks/service.ts). */
export interface TaskHost {
  /** Heap bytes of its request a task may keep, estimated (`tasks.maxArgumentBytes`). */
  readonly maxArgumentBytes: number
  /** Stores a task and starts `work` in it as `plan` says; undefined when the store had no room and the task is not required. */
  createTask (ctx: HandlerContext, work: (ctx: HandlerContext) => unknown, required: boolean, plan: TaskPlan): Promise<JsonObject | undefined>
  /** Fails a task whose `CreateTaskResult` never reached its client (the call that created it answered something else). */
  abandon (taskId: string, request: FastifyRequest): void
}

export interface TaskPlan {
  /** Where the task is created. */
  readonly service: TaskHost
  /** The call's JSON-RPC params, as parsed once. */
  readonly params: JsonObject
  /** The called tool's shaping (its catalogue entry's), when it is a defined tool. */
  readonly shape: WorkResultStep | undefined
  /** The onResult and onError hooks the work's outcome passes, when any apply to the call. */
  readonly outcome: WorkOutcomeStep | undefined
}

const kPlan: unique symbol = Symbol('fastify-mcp-capabilities.taskPlan')
const kCreated: unique symbol = Symbol('fastify-mcp-capabilities.createdTask')

type WithPlan = FastifyRequest & { [kPlan]?: TaskPlan | null, [kCreated]?: string | null }

/** Declares the slots up front, so request objects keep one shape. */
export function declareTaskSlots (fastify: FastifyInstance): void {
  fastify.decorateRequest(kPlan, null)
  fastify.decorateRequest(kCreated, null)
}

export function setTaskPlan (request: FastifyRequest, plan: TaskPlan): void {
  (request as WithPlan)[kPlan] = Object.freeze(plan)
}

/** The plan of the call `request` carries, when it may create a task. */
export function taskPlanOf (request: FastifyRequest): TaskPlan | undefined {
  return (request as WithPlan)[kPlan] ?? undefined
}

export function noteCreatedTask (request: FastifyRequest, taskId: string): void {
  (request as WithPlan)[kCreated] = taskId
}

/** The id of the task this call created, if it created one. */
export function createdTaskOf (request: FastifyRequest): string | undefined {
  return (request as WithPlan)[kCreated] ?? undefined
}
