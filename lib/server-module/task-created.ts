/**
 * The `CreateTaskResult` that `runAsTask` answers when it created a task is
 * marked (a non-enumerable symbol, as `toolError` marks its results), so a
 * defined tool passes it unshaped: only `runAsTask` makes one, and no object
 * a handler builds (or copies from a client) is taken for it.
 */
import { hasMark, mark } from '../common/marks.js'

export const TASK_CREATED: unique symbol = Symbol('fastify-mcp-capabilities.taskCreated')

/** Marks `result` as the answer of a created task; returns it. */
export function markTaskCreated<T extends object> (result: T): T {
  return mark(result, TASK_CREATED)
}

/** True for what `runAsTask` answered when it created a task. */
export function isTaskCreated (value: unknown): boolean {
  return hasMark(value, TASK_CREATED)
}
