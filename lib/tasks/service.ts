/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), modern era
 * only, served when the endpoint is registered with `tasks: true`.
 *
 * The server decides per request: a `tools/call` handler hands its work to
 * `runAsTask(ctx, work)`. When the request declared the extension, the
 * endpoint stores a task, answers `CreateTaskResult` (`resultType: "task"`)
 * once the store holds it, and runs `work` in the background; the client polls
 * `tasks/get` (or listens: `subscriptions/listen` with `taskIds`), answers
 * questions with `tasks/update` and may `tasks/cancel`. Otherwise `work` runs
 * inline and its result is the answer, unless the task is `required` (then
 * -32021 names the extension). Anything the handler does before `runAsTask`
 * (e.g. `ctx.elicit()` over multi round-trip requests) happens synchronously,
 * before the task exists.
 *
 * Inside a task, `ctx.elicit()` and friends park the task in
 * `input_required` with the question in `inputRequests`; `ctx.signal` aborts
 * on `tasks/cancel`, on expiry and when the server closes; progress messages
 * become the task's `statusMessage`; `ctx.log` sends nothing (the extension
 * has no channel for it).
 *
 * Records live in a `TaskStore` (memory by default, Redis or your own to
 * share them between instances); every change is published on the event bus
 * as `{ type: 'taskStatus', owner, task }`, which feeds the listen streams of
 * every instance and tells the instance running the work about answers and
 * cancellations (lib/tasks/runs.ts).
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { callerOf } from '../handler/caller.js'
import { noteCreatedTask, type TaskHost, type TaskPlan, taskPlanOf, type WorkOutcomeStep, type WorkResultStep } from './call-plan.js'
import { markTaskCreated } from '../server-module/task-created.js'
import type { MaybePromise } from '../common/maybe-promise.js'
import { declaresTasks, TASKS_EXTENSION } from '../server-module/capabilities.js'
import { answerProblem, type ClientRequestMethod, type ClientRequestOptions, INPUT_KEY_PREFIX } from '../protocol/client-request-wire.js'
import { ClientAsking } from '../input/client-asking.js'
import { rejected, requireCapabilityFor } from '../input/client-requests.js'
import { errorOf, errorOutcome, INTERNAL_ERROR_OUTCOME, type Outcome } from '../handler/invoke.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { LogLevel } from '../protocol/log-level.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { Era } from '../protocol/methods.js'
import { boundedWait } from '../common/timers.js'
import type { ClientInfo, HandlerContext, JsonObject, TaskCreatedResult } from '../server-module/contract.js'
import type { EventBus } from '../parts/event-bus.js'
import { type AskRefusal, type Change, isTerminal, MemoryTaskStore, type StoredTask, type TaskLimits, type TaskStore, type TaskStoreFactory } from '../parts/task-store.js'
import { HeldOutcomes, storeOutcome, type TaskOutcome } from './held-outcomes.js'
import { type TaskRun, TaskRuns } from './runs.js'
import { DEFAULT_TOOL_ERROR_MODE, thrownToolResult, type ToolErrorMode } from '../handler/tool-errors.js'
import { toolResultOrEmpty } from '../handler/empty-result.js'
import { heapCostWithin, MAX_COST_PER_CHARACTER } from './argument-cost.js'

/** Who may see a task: a string per authorization context. */
export type TaskOwner = (request: FastifyRequest) => string

export interface RunAsTaskOptions {
  /**
   * The work cannot run without a task: a request that did not declare the
   * extension gets -32021 naming it, instead of running the work inline.
   */
  required?: boolean
}

const ASK_REFUSALS: Readonly<Record<AskRefusal, string>> = {
  gone: 'the task is gone',
  finished: 'the task has finished',
  'too-large': 'the question is larger than a task may keep (tasks.maxTaskBytes)',
  full: 'the task store has no room left for the question (tasks.maxStoredBytes)'
}

/** How long `close()` waits for a shared store to record that work here stopped. */
const CLOSE_WAIT_MS = 1000

/** Most bytes of outcomes held for a store that cannot be reached (and at most `maxTasks` outcomes). */
export const MAX_HELD_OUTCOME_BYTES = 16 * 1024 * 1024

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

function missingTasksError (): McpError {
  return new McpError(ErrorCode.MissingRequiredClientCapability,
    `Missing required client capability: extension ${TASKS_EXTENSION}`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } })
}

const NOT_FOUND: Outcome = Object.freeze({ ok: false, code: ErrorCode.InvalidParams, message: 'Invalid params: task not found (unknown, expired, or not yours)' })
const ACK: Outcome = Object.freeze({ ok: true, result: Object.freeze({}) })

export interface TaskServiceOptions {
  limits: TaskLimits
  owner?: TaskOwner
  store?: TaskStoreFactory
  /** Where task changes are published; without one, only this process hears them. */
  bus?: EventBus
  log: FastifyBaseLogger
  /** Heap bytes of its request a task may keep, estimated (`tasks.maxArgumentBytes`). */
  maxArgumentBytes: number
  /** What a task's work that throws answers (the `toolErrors` option); default `'message'`. */
  toolErrors?: ToolErrorMode
}

/** The endpoint side of the extension: the store, who owns what, the work running here, and the `tasks/*` methods. */
export class TaskService implements TaskHost {
  readonly store: TaskStore
  readonly limits: TaskLimits
  readonly runs: TaskRuns
  readonly maxArgumentBytes: number
  readonly #owner: TaskOwner
  readonly #bus: EventBus | undefined
  readonly #log: FastifyBaseLogger
  readonly #toolErrors: ToolErrorMode
  readonly #unsubscribe: () => void
  /** Outcomes of work that ended while the store could not take them. */
  readonly #held: HeldOutcomes
  #closing: Promise<void> | undefined

  constructor (options: TaskServiceOptions) {
    this.limits = options.limits
    this.store = options.store === undefined ? new MemoryTaskStore(options.limits) : options.store(options.limits)
    this.#owner = options.owner ?? callerOf
    this.maxArgumentBytes = options.maxArgumentBytes
    this.#bus = options.bus
    this.#log = options.log
    this.#toolErrors = options.toolErrors ?? DEFAULT_TOOL_ERROR_MODE
    this.runs = new TaskRuns(this.store, options.log)
    this.#held = new HeldOutcomes({
      store: this.store,
      log: options.log,
      maxCount: options.limits.maxTasks,
      maxBytes: Math.min(options.limits.maxStoredBytes, MAX_HELD_OUTCOME_BYTES),
      onStored: (change) => this.#changed(change.task)
    })
    this.#unsubscribe = this.#bus?.subscribe((event) => {
      if (event.type === 'taskStatus') this.runs.observe(event.task)
    }) ?? (() => {})
  }

  ownerOf (request: FastifyRequest): string {
    const owner = this.#owner(request)
    if (typeof owner !== 'string') throw new TypeError('the tasks.owner function must return a string')
    return owner
  }

  /** Answers `tasks/get`, `tasks/update` or `tasks/cancel`; `taskId` is already known to be a string. */
  async respond (method: string, params: JsonObject, request: FastifyRequest, clientCapabilities: JsonObject): Promise<Outcome> {
    if (!declaresTasks(clientCapabilities)) {
      const err = missingTasksError()
      return { ok: false, code: err.code, message: err.message, data: err.data }
    }
    try {
      const owner = this.ownerOf(request)
      const taskId = params.taskId as string
      switch (method) {
        case 'tasks/get': {
          const task = await this.store.get(taskId, owner)
          return task === undefined ? NOT_FOUND : { ok: true, result: this.wireTask(task) }
        }
        case 'tasks/update':
          return await this.#update(taskId, owner, params.inputResponses)
        default: {
          const change = await this.store.cancel(taskId, owner, 'Cancelled by the client')
          if (change === undefined) return NOT_FOUND
          if (change.changed) this.#changed(change.task)
          return ACK
        }
      }
    } catch (err) {
      request.log.error({ err, method }, 'MCP task request failed (task owner or task store)')
      return INTERNAL_ERROR_OUTCOME
    }
  }

  /** The wire Task of `tasks/get` and `notifications/tasks`: the task plus what its status carries. */
  wireTask (task: StoredTask): JsonObject {
    const out = taskFields(task, this.limits)
    if (task.status === 'input_required') out.inputRequests = task.inputRequests
    else if (task.status === 'completed' && task.result !== undefined) out.result = task.result
    else if (task.status === 'failed' && task.error !== undefined) out.error = task.error
    return out
  }

  /** Creates the task and starts `work` as its run; undefined when the store refused. */
  async createTask (ctx: HandlerContext, work: (ctx: HandlerContext) => unknown, required: boolean, plan: TaskPlan): Promise<JsonObject | undefined> {
    const owner = this.ownerOf(ctx.request)
    // A store that cannot be reached is the server's fault, not the tool's: an McpError keeps -32603
    // (a plain throw from the handler would become a tool execution error for the model).
    const created = await this.store.create(owner).catch((err: unknown) => {
      this.#log.error({ err }, 'MCP task store: a task could not be created')
      throw new McpError(ErrorCode.InternalError, 'Internal error')
    })
    if (!created.ok) {
      if (!required) return undefined
      throw new McpError(ErrorCode.InternalError, created.reason === 'owner-full'
        ? 'Too many tasks in progress for this caller; try again later'
        : 'Too many tasks in progress; try again later')
    }
    const { task } = created
    if (ctx.signal.aborted) {
      // The endpoint gave up on this call while the store answered (timeout, close, client gone): nobody will learn of the task.
      this.abandon(task.taskId, ctx.request)
      throw new McpError(ErrorCode.InternalError, 'Internal error')
    }
    const run = this.runs.start(task.taskId, owner, task.ttlMs)
    // The tool's name, for what the task tells the client and the log when its work throws.
    const tool = typeof plan.params.name === 'string' ? plan.params.name : ctx.method
    // A defined tool's shaping, then the outcome hooks, see the work's result; the CreateTaskResult passes
    // neither (the created task's id tells the endpoint).
    noteCreatedTask(ctx.request, task.taskId)
    this.#start(run, ctx, work, tool, Date.parse(task.createdAt) + task.ttlMs, plan.shape, plan.outcome)
    return { resultType: 'task', ...taskFields(task, this.limits) }
  }

  /**
   * The call that created the task answered something other than its
   * `CreateTaskResult` (the handler threw or returned something else after
   * `runAsTask`, or the call was stopped while the store created it):
   * nobody knows the task, so it is failed and its work stopped rather than
   * left running unseen.
   */
  abandon (taskId: string, request: FastifyRequest): void {
    request.log.error({ taskId }, 'MCP tools/call created a task but answered without it: the task is failed and its work stopped')
    const error = { code: ErrorCode.InternalError, message: 'The call that created this task did not answer with it' }
    this.store.fail(taskId, error, error.message).then((change) => {
      if (change?.changed === true) this.#changed(change.task)
    }, (err: unknown) => this.#log.warn({ err, taskId }, 'MCP task store: an abandoned task could not be failed'))
  }

  /** Parks the task on a question to the client; resolves with the answer `tasks/update` brings. */
  ask (run: TaskRun, key: string, request: JsonObject): Promise<JsonObject> {
    if (run.ended) return rejected(new Error(`task ${run.taskId} has ended`))
    const answer = this.runs.wait(run, key)
    this.store.ask(run.taskId, key, request).then((outcome) => {
      if (outcome.ok) this.#changed(outcome.task)
      else this.runs.refuse(run, key, new McpError(ErrorCode.InternalError, `The question could not be asked: ${ASK_REFUSALS[outcome.reason]}`))
    }, (err: unknown) => this.runs.refuse(run, key, err))
    return answer
  }

  /** A progress message becomes the task's `statusMessage`. */
  setStatusMessage (run: TaskRun, message: string): void {
    if (run.ended) return
    this.store.setStatusMessage(run.taskId, message).then((change) => {
      if (change?.changed === true) this.#changed(change.task)
    }, (err: unknown) => this.#log.warn({ err, taskId: run.taskId }, 'MCP task status message could not be stored'))
  }

  /** Ends every run here (their signals abort); with a shared store, records them as failed (bounded wait). Idempotent. */
  close (): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close (): Promise<void> {
    this.#unsubscribe()
    await this.#held.close()
    const open = this.runs.close('the server is shutting down')
    if (this.store.shared && open.length > 0) {
      const error = { code: ErrorCode.InternalError, message: 'The server shut down before the task finished' }
      // A store that does not answer in time does not hold up the close.
      await boundedWait(Promise.allSettled(open.map(async (run) => {
        const change = await this.store.fail(run.taskId, error, error.message)
        if (change?.changed === true) await this.#publish(change.task)
      })), CLOSE_WAIT_MS).catch(() => {})
    }
    await this.store.close()
  }

  async #update (taskId: string, owner: string, responses: unknown): Promise<Outcome> {
    if (!isJsonObject(responses)) return { ok: false, code: ErrorCode.InvalidParams, message: 'Invalid params: "inputResponses" must be an object' }
    const task = await this.store.get(taskId, owner)
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
    const outcome = await this.store.answer(taskId, owner, answers)
    if (outcome === undefined) return NOT_FOUND
    if (!outcome.ok) {
      return invalidAnswer(outcome.reason === 'too-large'
        ? 'inputResponses are larger than a task may keep'
        : 'the task store has no room left for these inputResponses; try again later')
    }
    if (outcome.accepted.length > 0) this.#changed(outcome.task)
    return ACK
  }

  /**
   * Runs `work` and stores its outcome: a result completes the task; an
   * `McpError` fails it with that error; anything else thrown completes it
   * with a tool execution error (`isError: true`), what the same call would
   * have answered without a task. With `shape` (a defined tool's), the
   * work's value becomes the tool's result as a direct call's would, a value
   * that does not fit failing the task (-32603). With `through` (the
   * endpoint's onResult and onError hooks), the outcome then passes it, as a
   * direct call's would.
   */
  #start (run: TaskRun, ctx: HandlerContext, work: (ctx: HandlerContext) => unknown, tool: string, expiresAt: number,
    shape: WorkResultStep | undefined, through: WorkOutcomeStep | undefined): void {
    // Only strings and the task's context are captured below: the request and its body stay free to go
    // (unless hooks see the outcome: `through` keeps the operation they are given, see inputFits).
    const taskCtx = new TaskContext(ctx, run, this)
    const logger = taskCtx.logger
    const method = ctx.method
    Promise.resolve().then(() => work(taskCtx)).then((value): MaybePromise<Outcome | undefined> => {
      // Cancelled, expired or shut down meanwhile: the store already has the final state.
      if (run.ended) return undefined
      // The tool's shaping sees what the work returned (an output schema refuses nothing); nothing left is an empty result.
      return shape === undefined ? this.#finalOutcome(toolResultOrEmpty(value), tool, method, logger) : this.#shaped(shape, value, taskCtx, tool)
    }, (err: unknown): Outcome | undefined => {
      if (run.ended) return undefined
      if (err instanceof McpError) return errorOutcome(err)
      if (run.controller.signal.aborted) return undefined
      return { ok: true, result: thrownToolResult(err, tool, this.#toolErrors, logger) }
    }).then(async (outcome) => {
      if (outcome === undefined) return
      if (through !== undefined) {
        try {
          outcome = await through(outcome, taskCtx)
        } catch (err) {
          // The step turns a hook's throw into an outcome; this is a fault of the endpoint's own.
          logger.error({ err, method, tool }, `MCP hooks on the task outcome of tool ${JSON.stringify(tool)} failed`)
          outcome = INTERNAL_ERROR_OUTCOME
        }
        if (run.ended) return
        // A hook's replacement must be a final result too.
        if (outcome.ok) outcome = this.#finalOutcome(outcome.result, tool, method, logger)
      }
      if (!outcome.ok) {
        await this.#finish(run, { kind: 'fail', error: errorOf(outcome) as JsonObject, statusMessage: outcome.message }, expiresAt)
        return
      }
      const result = outcome.result
      const change = await this.#finish(run, { kind: 'complete', result: typeof result.resultType === 'string' ? result : { ...result, resultType: 'complete' } }, expiresAt)
      if (change?.changed === true && change.task.status === 'failed') {
        logger.warn({ method, tool, statusMessage: change.task.statusMessage }, `MCP task result of tool ${JSON.stringify(tool)} could not be kept; the task failed`)
      }
    }).catch((err: unknown) => {
      logger.error({ err, method, tool }, `MCP task outcome of tool ${JSON.stringify(tool)} could not be stored`)
      this.runs.end(run, 'the task store failed', true)
    })
  }

  /** The tool's result made of the work's value; a value the tool does not declare is the server's fault (-32603, logged). */
  async #shaped (shape: WorkResultStep, value: unknown, taskCtx: TaskContext, tool: string): Promise<Outcome> {
    const method = taskCtx.method
    try {
      return this.#finalOutcome(toolResultOrEmpty(await shape(value, taskCtx)), tool, method, taskCtx.logger)
    } catch (err) {
      // The shaping logs what did not match and throws -32603; anything else it throws is logged here.
      if (err instanceof McpError) return errorOutcome(err)
      taskCtx.logger.error({ err, method, tool }, `MCP task result of tool ${JSON.stringify(tool)} could not be made into the tool's result`)
      return INTERNAL_ERROR_OUTCOME
    }
  }

  /** A task ends with a final result object; anything else (not an object, a question, another task) is the server's fault. */
  #finalOutcome (result: unknown, tool: string, method: string, logger: FastifyBaseLogger): Outcome {
    if (isJsonObject(result) && result.resultType !== 'input_required' && result.resultType !== 'task') return { ok: true, result }
    logger.error({ method, tool }, `MCP task of tool ${JSON.stringify(tool)} returned a result that is not a final object (ask with ctx.elicit inside a task)`)
    return INTERNAL_ERROR_OUTCOME
  }

  /**
   * Stores the outcome, ends the run and publishes the change. A store that
   * cannot take it now (a shared one cut off) gets it later: it is held
   * here and stored once the store answers again (see held-outcomes.ts).
   */
  async #finish (run: TaskRun, outcome: TaskOutcome, expiresAt: number): Promise<Change | undefined> {
    let change: Change | undefined
    try {
      change = await storeOutcome(this.store, run.taskId, outcome)
    } catch (err) {
      this.runs.end(run, 'the task finished', false)
      this.#log.warn({ err, taskId: run.taskId }, 'MCP task outcome could not be stored now; it is held and stored once the task store answers again')
      this.#held.hold(run.taskId, outcome, expiresAt)
      return undefined
    }
    this.runs.end(run, 'the task finished', false)
    if (change?.changed === true) this.#changed(change.task)
    return change
  }

  /** A task changed here: the run (if here) acts on it at once, and every instance hears of it. */
  #changed (task: StoredTask): void {
    this.runs.observe(task)
    void this.#publish(task)
  }

  async #publish (task: StoredTask): Promise<void> {
    if (this.#bus === undefined) return
    try {
      await this.#bus.publish({ type: 'taskStatus', owner: task.owner, task: this.wireTask(task) })
    } catch (err) {
      this.#log.warn({ err, taskId: task.taskId }, 'MCP task status could not be published on the event bus')
    }
  }
}

function invalidAnswer (problem: string): Outcome {
  return { ok: false, code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` }
}

/** The fields every view of a task carries. */
function taskFields (task: StoredTask, limits: TaskLimits): JsonObject {
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
  if (ctx instanceof TaskContext) return undefined
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

/**
 * The `ctx` of work running as a task: the creating request's view, with the
 * task's signal and questions. It keeps copies of the few fields it needs,
 * never the request (whose parsed body may be large): `ctx.request` throws
 * inside a task. Read what the work needs from the request before `runAsTask`.
 */
class TaskContext extends ClientAsking implements HandlerContext {
  readonly era: Era
  readonly protocolVersion: string
  readonly method: string
  readonly clientInfo: ClientInfo | null
  readonly clientCapabilities: JsonObject
  readonly logger: FastifyBaseLogger
  readonly requestState = undefined
  readonly #run: TaskRun
  readonly #service: TaskService
  readonly #counters = new Map<ClientRequestMethod, number>()

  constructor (outer: HandlerContext, run: TaskRun, service: TaskService) {
    super()
    this.#run = run
    this.#service = service
    this.era = outer.era
    this.protocolVersion = outer.protocolVersion
    this.method = outer.method
    this.clientInfo = outer.clientInfo
    this.clientCapabilities = outer.clientCapabilities
    this.logger = outer.logger.child({ taskId: run.taskId })
  }

  get request (): FastifyRequest {
    throw new TypeError('ctx.request is not available inside a task (the request is gone once the task is created): read what the work needs before runAsTask')
  }

  get signal (): AbortSignal {
    return this.#run.controller.signal
  }

  get taskId (): string {
    return this.#run.taskId
  }

  /** No progress notifications on tasks; a message becomes the task's `statusMessage`. */
  progress (_progress: number, _total?: number, message?: string): void {
    if (typeof message !== 'string') return
    this.#service.setStatusMessage(this.#run, message)
  }

  /** The extension has no channel for log messages from a task. */
  log (_level: LogLevel, _data: unknown, _logger?: string): void {}

  protected ask (method: ClientRequestMethod, params: JsonObject, options: ClientRequestOptions | undefined): Promise<JsonObject> {
    try {
      requireCapabilityFor(method, params, this.clientCapabilities)
      const key = this.#key(method, options?.key)
      return this.#service.ask(this.#run, key, { method, params })
    } catch (err) {
      return rejected(err)
    }
  }

  /** Keys are unique over the task's lifetime: default ones count on, explicit ones may not repeat. */
  #key (method: ClientRequestMethod, explicit: string | undefined): string {
    const used = this.#run.usedKeys
    let key: string
    if (explicit === undefined) {
      let n = this.#counters.get(method) ?? 0
      do key = `${INPUT_KEY_PREFIX[method]}-${++n}`; while (used.has(key))
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
