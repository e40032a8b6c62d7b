/**
 * The error of a request that needs the tasks extension without declaring
 * it: `tasks/*` (lib/tasks/task-methods.ts) and a work that must run as a
 * task (lib/tasks/run-as-task.ts, which every deployment loads: it is
 * public, the methods are loaded with `tasks` only).
 */
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { TASKS_EXTENSION } from '../server-module/capabilities.js'

export function missingTasksError (): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extension ${TASKS_EXTENSION}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
}
