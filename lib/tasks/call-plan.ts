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
import type { FastifyRequest } from 'fastify'
import { RequestSlot } from '../common/request-slot.js'
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

// Private per-request slots (lib/common/request-slot.ts).
const planSlot = new RequestSlot<TaskPlan>()
const createdSlot = new RequestSlot<string>()

export function setTaskPlan (request: FastifyRequest, plan: TaskPlan): void {
  planSlot.set(request, Object.freeze(plan))
}

/** The plan of the call `request` carries, when it may create a task. */
export function taskPlanOf (request: FastifyRequest): TaskPlan | undefined {
  return planSlot.get(request)
}

export function noteCreatedTask (request: FastifyRequest, taskId: string): void {
  createdSlot.set(request, taskId)
}

/** The id of the task this call created, if it created one. */
export function createdTaskOf (request: FastifyRequest): string | undefined {
  return createdSlot.get(request)
}
