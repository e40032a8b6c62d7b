/**
 * The `tasks/*` methods (`tasks/get`, `tasks/update`, `tasks/cancel`) and
 * the wire form of a task, answered from the task store for the caller who
 * owns the task.
 */
import type { FastifyRequest } from 'fastify'
import { INTERNAL_ERROR_OUTCOME, type Outcome } from '../handler/invoke.js'
import { answerProblem } from '../protocol/client-request-wire.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { declaresTasks } from '../server-module/capabilities.js'
import type { JsonObject } from '../server-module/contract.js'
import { isTerminal, type StoredTask, type TaskLimits, type TaskStore } from '../parts/task-store.js'
import { missingTasksError } from './missing-tasks-error.js'

/** What the methods need of the tasks service. */
export interface TaskMethodsHost {
  readonly store: TaskStore
  readonly limits: TaskLimits
  ownerOf (request: FastifyRequest): string
  /** A task changed here: the run (if here) acts on it, and every instance hears of it. */
  changed (task: StoredTask): void
}

const NOT_FOUND: Outcome = Object.freeze({ ok: false, code: ErrorCode.InvalidParams, message: 'Invalid params: task not found (unknown, expired, or not yours)' })
const ACK: Outcome = Object.freeze({ ok: true, result: Object.freeze({}) })

/** Answers `tasks/get`, `tasks/update` or `tasks/cancel`; `taskId` is already known to be a string. */
export async function answerTaskMethod (host: TaskMethodsHost, method: string, params: JsonObject, request: FastifyRequest, clientCapabilities: JsonObject): Promise<Outcome> {
  if (!declaresTasks(clientCapabilities)) {
    const err = missingTasksError()
    return { ok: false, code: err.code, message: err.message, data: err.data }
  }
  try {
    const owner = host.ownerOf(request)
    const taskId = params.taskId as string
    switch (method) {
      case 'tasks/get': {
        const task = await host.store.get(taskId, owner)
        return task === undefined ? NOT_FOUND : { ok: true, result: wireTask(task, host.limits) }
      }
      case 'tasks/update':
        return await update(host, taskId, owner, params.inputResponses)
      default: {
        const change = await host.store.cancel(taskId, owner, 'Cancelled by the client')
        if (change === undefined) return NOT_FOUND
        if (change.changed) host.changed(change.task)
        return ACK
      }
    }
  } catch (err) {
    request.log.error({ err, method }, 'MCP task request failed (task owner or task store)')
    return INTERNAL_ERROR_OUTCOME
  }
}

/** The wire Task of `tasks/get` and `notifications/tasks`: the task plus what its status carries. */
export function wireTask (task: StoredTask, limits: TaskLimits): JsonObject {
  const out = taskFields(task, limits)
  if (task.status === 'input_required') out.inputRequests = task.inputRequests
  else if (task.status === 'completed' && task.result !== undefined) out.result = task.result
  else if (task.status === 'failed' && task.error !== undefined) out.error = task.error
  return out
}

async function update (host: TaskMethodsHost, taskId: string, owner: string, responses: unknown): Promise<Outcome> {
  if (!isJsonObject(responses)) return { ok: false, code: ErrorCode.InvalidParams, message: 'Invalid params: "inputResponses" must be an object' }
  const task = await host.store.get(taskId, owner)
  if (task === undefined) return NOT_FOUND
  if (isTerminal(task.status)) return ACK
  // Answers to outstanding keys must have their request's result shape; other keys are ignored.
  const answers: Record<string, JsonObject> = {}
  for (const [key, answer] of Object.entries(responses)) {
    const asked = task.inputRequests[key]
    if (asked === undefined) continue
    if (!isJsonObject(answer)) return invalidAnswer(`inputResponses[${JSON.stringify(key)}] must be a result object`)
    const problem = answerProblem(String(asked.method), answer)
    if (problem !== undefined) return invalidAnswer(`inputResponses[${JSON.stringify(key)}] ${problem}`)
    answers[key] = answer
  }
  if (Object.keys(answers).length === 0) return ACK
  const outcome = await host.store.answer(taskId, owner, answers)
  if (outcome === undefined) return NOT_FOUND
  if (!outcome.ok) {
    return invalidAnswer(outcome.reason === 'too-large'
      ? 'inputResponses are larger than a task may keep'
      : 'the task store has no room left for these inputResponses; try again later')
  }
  if (outcome.accepted.length > 0) host.changed(outcome.task)
  return ACK
}

function invalidAnswer (problem: string): Outcome {
  return { ok: false, code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` }
}

/** The fields every view of a task carries. */
export function taskFields (task: StoredTask, limits: TaskLimits): JsonObject {
  const out: JsonObject = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: limits.pollIntervalMs
  }
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage
  return out
}
