/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), modern era
 * only, served when the endpoint is registered with `tasks: true`.
 *
 * The server decides per request: a `tools/call` handler hands its work to
 * `runAsTask(ctx, work)`. When the request declared the extension, the
 * endpoint stores a task, answers `CreateTaskResult` (`resultType: "task"`)
 * at once and runs `work` in the background; the client polls `tasks/get`,
 * answers questions with `tasks/update` and may `tasks/cancel`. Otherwise
 * `work` runs inline and its result is the answer, unless the task is
 * `required` (then -32021 names the extension). Anything the handler does
 * before `runAsTask` (e.g. `ctx.elicit()` over multi round-trip requests)
 * happens synchronously, before the task exists.
 *
 * Inside a task, `ctx.elicit()` and friends park the task in
 * `input_required` with the question in `inputRequests`; `ctx.signal` aborts
 * on `tasks/cancel`, on expiry and when the server closes; progress messages
 * become the task's `statusMessage`; `ctx.log` sends nothing (the extension
 * has no channel for it).
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { callerOf } from '../auth/caller.js'
import { TASKS_EXTENSION } from '../capabilities/build.js'
import type { ClientRequestMethod, ClientRequestOptions } from '../protocol/client-requests.js'
import { ClientAsking } from '../input/client-asking.js'
import { rejected, requireCapabilityFor } from '../input/client-requests.js'
import type { Outcome } from '../handler/invoke.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { LogLevel } from '../protocol/log-level.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { Era } from '../protocol/methods.js'
import type { ClientInfo, HandlerContext, JsonObject } from '../capabilities/server-module.js'
import { type TaskLimits, type TaskRecord, TaskStore } from './store.js'

/** The methods the extension adds; `tasks/result` and `tasks/list` are gone in this version of tasks. */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tasks/get', 'tasks/update', 'tasks/cancel'])

/** Who may see a task: a string per authorization context. */
export type TaskOwner = (request: FastifyRequest) => string

export interface RunAsTaskOptions {
  /**
   * The work cannot run without a task: a request that did not declare the
   * extension gets -32021 naming it, instead of running the work inline.
   */
  required?: boolean
}

const KEY_PREFIX: Readonly<Record<ClientRequestMethod, string>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots'
}

/** True when the request's client capabilities declare the tasks extension. */
export function declaresTasks (clientCapabilities: JsonObject): boolean {
  const extensions = clientCapabilities.extensions
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION])
}

function missingTasksError (): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extension ${TASKS_EXTENSION}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
}

/** The endpoint side of the extension: the store, who owns what, and the `tasks/*` methods. */
export class TaskService {
  readonly store: TaskStore
  readonly #owner: TaskOwner

  constructor (limits: TaskLimits, owner: TaskOwner = callerOf) {
    this.store = new TaskStore(limits)
    this.#owner = owner
  }

  /** Lets `runAsTask` called while serving this request create a task here. */
  bind (request: FastifyRequest): void {
    services.set(request, this)
  }

  ownerOf (request: FastifyRequest): string {
    const owner = this.#owner(request)
    if (typeof owner !== 'string') throw new TypeError('the taskOptions.owner function must return a string')
    return owner
  }

  /** Answers `tasks/get`, `tasks/update` or `tasks/cancel`; `taskId` is already known to be a string. */
  respond (method: string, params: JsonObject, request: FastifyRequest, clientCapabilities: JsonObject): Outcome {
    if (!declaresTasks(clientCapabilities)) {
      const err = missingTasksError()
      return { ok: false, code: err.code, message: err.message, data: err.data }
    }
    let owner: string
    try {
      owner = this.ownerOf(request)
    } catch (err) {
      request.log.error({ err }, 'MCP task owner could not be computed')
      return { ok: false, code: ErrorCode.InternalError, message: 'Internal error' }
    }
    const record = this.store.get(params.taskId as string, owner)
    if (record === undefined) return { ok: false, code: ErrorCode.InvalidParams, message: 'Invalid params: task not found (unknown, expired, or not yours)' }
    switch (method) {
      case 'tasks/get':
        return { ok: true, result: detailedTask(record, this.store.limits) }
      case 'tasks/update': {
        const responses = params.inputResponses
        if (!isJsonObject(responses)) return { ok: false, code: ErrorCode.InvalidParams, message: 'Invalid params: "inputResponses" must be an object' }
        const problem = record.terminal ? undefined : this.store.answer(record, responses)
        if (problem !== undefined) return { ok: false, code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` }
        return { ok: true, result: {} }
      }
      default:
        this.store.cancel(record, 'Cancelled by the client')
        return { ok: true, result: {} }
    }
  }

  close (): void {
    this.store.close()
  }
}

const services = new WeakMap<FastifyRequest, TaskService>()

/** The fields every view of a task carries. */
function taskFields (record: TaskRecord, limits: TaskLimits): JsonObject {
  const out: JsonObject = {
    taskId: record.taskId,
    status: record.status,
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
    pollIntervalMs: limits.pollIntervalMs
  }
  if (record.statusMessage !== undefined) out.statusMessage = record.statusMessage
  return out
}

/** The `tasks/get` view: the task plus what its status carries (`inputRequests`, `result` or `error`). */
export function detailedTask (record: TaskRecord, limits: TaskLimits): JsonObject {
  const out = taskFields(record, limits)
  if (record.status === 'input_required') out.inputRequests = Object.fromEntries(record.inputRequests)
  else if (record.status === 'completed') out.result = record.result
  else if (record.status === 'failed') out.error = record.error
  return out
}

/**
 * True when `runAsTask(ctx, ...)` would create a task: the endpoint serves
 * the extension on this request (modern `tools/call`, `tasks: true`) and the
 * request declared it.
 */
export function canRunAsTask (ctx: HandlerContext): boolean {
  return services.has(ctx.request) && declaresTasks(ctx.clientCapabilities)
}

/**
 * Runs `work` as a task when the request allows one (see `canRunAsTask`)
 * and answers with the `CreateTaskResult`; otherwise runs `work` inline with
 * `ctx` and answers with its result, or, with `required`, rejects with -32021
 * (modern, extension served but not declared) or -32600 (not served here).
 * Only for `tools/call` handlers.
 */
export async function runAsTask (
  ctx: HandlerContext,
  work: (ctx: HandlerContext) => unknown,
  options: RunAsTaskOptions = {}
): Promise<JsonObject> {
  const service = services.get(ctx.request)
  if (service !== undefined && declaresTasks(ctx.clientCapabilities)) {
    const record = service.store.create(service.ownerOf(ctx.request))
    if (record !== undefined) {
      const created: JsonObject = { resultType: 'task', ...taskFields(record, service.store.limits) }
      start(service.store, record, ctx, work)
      return created
    }
    if (options.required === true) throw new McpError(ErrorCode.InternalError, 'Too many tasks in progress; try again later')
    // The store is full: the server may always answer without a task.
  } else if (options.required === true) {
    if (service !== undefined) throw missingTasksError()
    throw new McpError(ErrorCode.InvalidRequest,
      `This tool runs only as a task (extension ${TASKS_EXTENSION}), which this endpoint does not serve for this request`)
  }
  const value = await work(ctx)
  return value === undefined || value === null ? {} : value as JsonObject
}

function start (store: TaskStore, record: TaskRecord, ctx: HandlerContext, work: (ctx: HandlerContext) => unknown): void {
  const taskCtx = new TaskContext(ctx, record, store)
  const logger = taskCtx.logger
  Promise.resolve().then(() => work(taskCtx)).then((value) => {
    const result = value === undefined || value === null ? {} : value
    if (!isJsonObject(result) || result.resultType === 'input_required' || result.resultType === 'task') {
      logger.error({ method: ctx.method }, 'MCP task returned a result that is not a final object (ask with ctx.elicit inside a task)')
      store.fail(record, { code: ErrorCode.InternalError, message: 'Internal error' }, 'Internal error')
      return
    }
    store.complete(record, typeof result.resultType === 'string' ? result : { ...result, resultType: 'complete' })
  }, (err: unknown) => {
    if (record.terminal) return
    if (err instanceof McpError) {
      const error: JsonObject = { code: err.code, message: err.message }
      if (err.data !== undefined) error.data = err.data
      store.fail(record, error, err.message)
      return
    }
    if (record.controller.signal.aborted) return
    logger.error({ err, method: ctx.method }, 'MCP task failed')
    store.fail(record, { code: ErrorCode.InternalError, message: 'Internal error' }, 'Internal error')
  })
}

/** The `ctx` of work running as a task: the creating request's view, with the task's signal and questions. */
class TaskContext extends ClientAsking implements HandlerContext {
  readonly request: FastifyRequest
  readonly era: Era
  readonly protocolVersion: string
  readonly method: string
  readonly clientInfo: ClientInfo | null
  readonly clientCapabilities: JsonObject
  readonly logger: FastifyBaseLogger
  readonly requestState = undefined
  readonly #outer: HandlerContext
  readonly #record: TaskRecord
  readonly #store: TaskStore
  readonly #counters = new Map<ClientRequestMethod, number>()

  constructor (outer: HandlerContext, record: TaskRecord, store: TaskStore) {
    super()
    this.#outer = outer
    this.#record = record
    this.#store = store
    this.request = outer.request
    this.era = outer.era
    this.protocolVersion = outer.protocolVersion
    this.method = outer.method
    this.clientInfo = outer.clientInfo
    this.clientCapabilities = outer.clientCapabilities
    this.logger = outer.logger.child({ taskId: record.taskId })
  }

  get signal (): AbortSignal {
    return this.#record.controller.signal
  }

  get taskId (): string {
    return this.#record.taskId
  }

  /** No progress notifications on tasks; a message becomes the task's `statusMessage`. */
  progress (_progress: number, _total?: number, message?: string): void {
    if (typeof message !== 'string' || this.#record.terminal) return
    this.#record.statusMessage = message
    this.#record.touch()
  }

  /** The extension has no channel for log messages from a task. */
  log (_level: LogLevel, _data: unknown, _logger?: string): void {}

  requireClientCapabilities (...names: string[]): void {
    this.#outer.requireClientCapabilities(...names)
  }

  protected ask (method: ClientRequestMethod, params: JsonObject, options: ClientRequestOptions | undefined): Promise<JsonObject> {
    try {
      requireCapabilityFor(method, params, this.clientCapabilities)
      const key = this.#key(method, options?.key)
      return this.#store.ask(this.#record, key, { method, params })
    } catch (err) {
      return rejected(err)
    }
  }

  /** Keys are unique over the task's lifetime: default ones count on, explicit ones may not repeat. */
  #key (method: ClientRequestMethod, explicit: string | undefined): string {
    const used = this.#record.usedKeys
    let key: string
    if (explicit === undefined) {
      let n = this.#counters.get(method) ?? 0
      do key = `${KEY_PREFIX[method]}-${++n}`; while (used.has(key))
      this.#counters.set(method, n)
    } else {
      if (typeof explicit !== 'string' || explicit.length === 0) throw new TypeError('options.key must be a non-empty string')
      if (used.has(explicit)) throw new TypeError(`input request key "${explicit}" was already used by this task`)
      key = explicit
    }
    used.add(key)
    return key
  }
}
