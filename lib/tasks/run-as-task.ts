/**
 * `runAsTask` and `canRunAsTask`: what a `tools/call` handler's work does
 * with the call's plan (lib/tasks/call-plan.ts, made by the modern era for
 * the call): run as a task when the request allows one, else inline (or
 * refused when a task is required).
 */
import { heapCostWithin, MAX_COST_PER_CHARACTER } from './argument-cost.js'
import { type TaskPlan, taskPlanOf } from './call-plan.js'
import { missingTasksError } from './missing-tasks-error.js'
import { isTaskContext } from './task-contexts.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { declaresTasks, TASKS_EXTENSION } from '../server-module/capabilities.js'
import type { HandlerContext, TaskCreatedResult } from '../server-module/contract.js'
import { markTaskCreated } from '../server-module/task-created.js'

export interface RunAsTaskOptions {
  /**
   * The work cannot run without a task: a request that did not declare the
   * extension gets -32021 naming it, instead of running the work inline.
   */
  required?: boolean
}

/**
 * Whether what a task would keep of this request fits the bound (estimated
 * heap, see argument-cost.ts); no walk when the whole body is small. The
 * arguments, client capabilities and client info are kept; with hooks that
 * see the work's outcome, the whole body too (their operation holds the request).
 */
function inputFits (ctx: HandlerContext, plan: TaskPlan, limit: number): boolean {
  const length = Number(ctx.request.headers['content-length'])
  if (Number.isSafeInteger(length) && length * MAX_COST_PER_CHARACTER <= limit) return true
  if (plan.outcome !== undefined) return heapCostWithin(ctx.request.body, limit) !== undefined
  const args = heapCostWithin(plan.params.arguments, limit)
  if (args === undefined) return false
  const caps = heapCostWithin(ctx.clientCapabilities, limit - args)
  return caps !== undefined && heapCostWithin(ctx.clientInfo, limit - args - caps) !== undefined
}

/**
 * True when `runAsTask(ctx, ...)` would create a task: the endpoint serves
 * the extension on this request (modern `tools/call`, `tasks: true`) and the
 * request declared it.
 */
export function canRunAsTask (ctx: HandlerContext): boolean {
  const plan = planOf(ctx)
  return plan !== undefined && declaresTasks(ctx.clientCapabilities) && inputFits(ctx, plan, plan.service.maxArgumentBytes)
}

/** The call's plan, when `ctx` serves a request (not a task) that may create a task. */
function planOf (ctx: HandlerContext): TaskPlan | undefined {
  if (isTaskContext(ctx)) return undefined
  return taskPlanOf(ctx.request)
}

/**
 * Runs `work` as a task when the request allows one (see `canRunAsTask`)
 * and answers with the `CreateTaskResult`; otherwise runs `work` inline with
 * `ctx` and answers with its result, or, with `required`, rejects with -32021
 * (modern, extension served but not declared) or -32600 (not served here).
 * Only for `tools/call` handlers. Typed by what `work` returns: a defined
 * tool returns `runAsTask(ctx, work)` as is, its work returning what the
 * handler would (the output shape, a `toolError`, a string), and that value
 * is shaped as a direct call's, inline or when the task ends.
 */
export async function runAsTask<R> (
  ctx: HandlerContext,
  work: (ctx: HandlerContext) => R | Promise<R>,
  options: RunAsTaskOptions = {}
): Promise<R | TaskCreatedResult> {
  // Inside a task already: the work runs in it.
  const plan = planOf(ctx)
  const service = plan?.service
  if (service !== undefined && declaresTasks(ctx.clientCapabilities) && !inputFits(ctx, plan as TaskPlan, service.maxArgumentBytes)) {
    // A task would keep too much of its request alive: run inline (the client waits; questions use
    // multi round-trip requests, which keep nothing here), or refuse when a task is required.
    if (options.required === true) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: the arguments are too large to run as a task (over ${service.maxArgumentBytes} bytes of memory, estimated)`)
    }
  } else if (service !== undefined && declaresTasks(ctx.clientCapabilities)) {
    const created = await service.createTask(ctx, work, options.required === true, plan as TaskPlan)
    if (created !== undefined) return markTaskCreated(created) as TaskCreatedResult
    // The store is full: the server may always answer without a task.
  } else if (options.required === true) {
    if (service !== undefined) throw missingTasksError()
    throw new McpError(ErrorCode.InvalidRequest,
      `This tool runs only as a task (extension ${TASKS_EXTENSION}), which this endpoint does not serve for this request`)
  }
  // As the handler would have returned it: the tool (a defined one's shaping, else the endpoint) makes the result,
  // an empty one for nothing (handler/empty-result.ts), as when the work ends in a task.
  return await work(ctx)
}
