/**
 * A modern client for the tasks extension's tests: sends 2026-07-28 requests
 * by `inject` with the headers a conforming client sets (`Mcp-Name` = taskId
 * on tasks/*), and checks every response: never a 5xx; errors, and results
 * other than task shapes, against the spec's JSON Schema; task shapes
 * (the extension has no schema in the spec folder) against SEP-2663's Task.
 */
import type { FastifyInstance } from 'fastify'
import { TASKS_EXTENSION } from '../../lib/index.js'
import { MODERN, type Asserts, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import { responseProblems } from '../helpers/spec-schemas.js'

export const TASKS_CAPS = Object.freeze({ extensions: { [TASKS_EXTENSION]: {} } })
export const TASK_STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled']
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const TASK_KEYS = new Set(['taskId', 'status', 'statusMessage', 'createdAt', 'lastUpdatedAt', 'ttlMs', 'pollIntervalMs'])
const DETAIL_KEYS: Record<string, string | undefined> = { input_required: 'inputRequests', completed: 'result', failed: 'error' }

export interface Reply {
  status: number
  json: any
}

/** What is wrong with `value` as a SEP-2663 Task (plus `resultType`, `_meta` and, when `detailed`, its status payload). */
export function taskProblems (value: any, detailed: boolean): string[] {
  const problems: string[] = []
  if (typeof value?.taskId !== 'string' || value.taskId.length === 0) problems.push('taskId must be a non-empty string')
  if (!TASK_STATUSES.includes(value?.status)) problems.push(`status ${JSON.stringify(value?.status)} is not a task status`)
  for (const key of ['createdAt', 'lastUpdatedAt']) if (!ISO.test(value?.[key])) problems.push(`${key} must be an ISO 8601 timestamp`)
  if (!(value?.ttlMs === null || (Number.isSafeInteger(value?.ttlMs) && value.ttlMs > 0))) problems.push('ttlMs must be null or a positive integer')
  if (value?.pollIntervalMs !== undefined && !(Number.isSafeInteger(value.pollIntervalMs) && value.pollIntervalMs > 0)) problems.push('pollIntervalMs must be a positive integer')
  if (value?.statusMessage !== undefined && typeof value.statusMessage !== 'string') problems.push('statusMessage must be a string')
  const payload = detailed ? DETAIL_KEYS[value?.status] : undefined
  for (const key of Object.keys(value ?? {})) {
    if (TASK_KEYS.has(key) || key === 'resultType' || key === '_meta' || key === payload) continue
    problems.push(`unexpected key ${key}`)
  }
  if (payload !== undefined && (value[payload] === null || typeof value[payload] !== 'object')) problems.push(`${payload} must be an object`)
  return problems
}

export interface SendOptions {
  capabilities?: Record<string, unknown>
  headers?: Record<string, string | undefined>
  id?: number | string
}

export function tasksClient (t: Asserts, app: FastifyInstance) {
  async function send (method: string, params: Record<string, unknown>, options: SendOptions = {}): Promise<Reply> {
    const message = { jsonrpc: '2.0', id: options.id ?? 1, method, params: { ...params, _meta: modernMeta(options.capabilities ?? TASKS_CAPS) } }
    const headers: Record<string, string> = modernHeaders(method, params)
    if (typeof params.taskId === 'string') headers['mcp-name'] = params.taskId
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      if (value === undefined) delete headers[name]
      else headers[name] = value
    }
    const response = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(message) })
    t.ok(response.statusCode < 500, `${method}: never a 5xx (got ${response.statusCode})`)
    const json = JSON.parse(response.body)
    const result = json.result
    if (result?.resultType === 'task') {
      t.strictSame(taskProblems(result, false), [], `${method}: a CreateTaskResult`)
    } else if (method === 'tasks/get' && result !== undefined) {
      t.equal(result.resultType, 'complete', 'tasks/get: resultType complete')
      t.strictSame(taskProblems(result, true), [], 'tasks/get: a DetailedTask')
      if (result.status === 'completed' && method === 'tasks/get') {
        t.strictSame(responseProblems(MODERN, { jsonrpc: '2.0', id: 1, result: result.result }, 'tools/call'), [], 'the inlined result is a CallToolResult')
      }
    } else {
      t.strictSame(responseProblems(MODERN, json, method), [], `${method}: valid against the ${MODERN} schema`)
    }
    return { status: response.statusCode, json }
  }

  return {
    send,
    call (name: string, args: Record<string, unknown> = {}, options: SendOptions = {}): Promise<Reply> {
      return send('tools/call', { name, arguments: args }, options)
    },
    get (taskId: string, options: SendOptions = {}): Promise<Reply> {
      return send('tasks/get', { taskId }, options)
    },
    update (taskId: string, inputResponses: unknown, options: SendOptions = {}): Promise<Reply> {
      return send('tasks/update', { taskId, inputResponses }, options)
    },
    cancel (taskId: string, options: SendOptions = {}): Promise<Reply> {
      return send('tasks/cancel', { taskId }, options)
    },
    /** Polls `tasks/get` until `done(task)` or the time is up; returns the last task. */
    async poll (taskId: string, done: (task: any) => boolean = (task) => ['completed', 'failed', 'cancelled'].includes(task.status), options: SendOptions = {}): Promise<any> {
      const deadline = Date.now() + 3000
      for (;;) {
        const reply = await send('tasks/get', { taskId }, options)
        const task = reply.json.result
        if (task === undefined || done(task) || Date.now() > deadline) return task
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
  }
}
