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
 *
 * This file is the service that wires the extension's parts together: the
 * store, who owns what, the runs here and the outcomes held for a store cut
 * off. The rest is one concern a file: the `tasks/*` methods
 * (task-methods.ts), `runAsTask` (run-as-task.ts), the task's `ctx`
 * (task-context.ts) and the run of its work (work-runner.ts).
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { callerOf } from '../handler/caller.js'
import type { Outcome } from '../handler/invoke.js'
import { noteCreatedTask, type TaskHost, type TaskPlan } from './call-plan.js'
import { rejected } from '../input/client-requests.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { boundedWait } from '../common/timers.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import type { EventBus } from '../parts/event-bus.js'
import { type AskRefusal, type Change, MemoryTaskStore, type StoredTask, type TaskLimits, type TaskStore, type TaskStoreFactory } from '../parts/task-store.js'
import { HeldOutcomes, storeOutcome, type TaskOutcome } from './held-outcomes.js'
import { type TaskRun, TaskRuns } from './runs.js'
import { DEFAULT_TOOL_ERROR_MODE, type ToolErrorMode } from '../handler/tool-errors.js'
import { TaskContext, type TaskQuestions } from './task-context.js'
import { answerTaskMethod, taskFields, type TaskMethodsHost, wireTask } from './task-methods.js'
import { runWork, type WorkHost } from './work-runner.js'

/** Who may see a task: a string per authorization context. */
export type TaskOwner = (request: FastifyRequest) => string

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
export class TaskService implements TaskHost, TaskQuestions {
  readonly store: TaskStore
  readonly limits: TaskLimits
  readonly runs: TaskRuns
  readonly maxArgumentBytes: number
  readonly #owner: TaskOwner
  readonly #bus: EventBus | undefined
  readonly #log: FastifyBaseLogger
  /** What the work runner is given: the `toolErrors` mode and how a run's outcome is stored. */
  readonly #workHost: WorkHost
  /** What the `tasks/*` methods are given. */
  readonly #methodsHost: TaskMethodsHost
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
    this.runs = new TaskRuns(this.store, options.log)
    this.#workHost = {
      toolErrors: options.toolErrors ?? DEFAULT_TOOL_ERROR_MODE,
      finish: (run, outcome, expiresAt) => this.#finish(run, outcome, expiresAt),
      end: (run, reason) => this.runs.end(run, reason, true)
    }
    this.#methodsHost = { store: this.store, limits: this.limits, ownerOf: (request) => this.ownerOf(request), changed: (task) => this.#changed(task) }
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

  /** Answers `tasks/get`, `tasks/update` or `tasks/cancel` (task-methods.ts); `taskId` is already known to be a string. */
  respond (method: string, params: JsonObject, request: FastifyRequest, clientCapabilities: JsonObject): Promise<Outcome> {
    return answerTaskMethod(this.#methodsHost, method, params, request, clientCapabilities)
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
    runWork(this.#workHost, {
      run,
      ctx: new TaskContext(ctx, run, this),
      work,
      tool,
      expiresAt: Date.parse(task.createdAt) + task.ttlMs,
      shape: plan.shape,
      through: plan.outcome
    })
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
      await this.#bus.publish({ type: 'taskStatus', owner: task.owner, task: wireTask(task, this.limits) })
    } catch (err) {
      this.#log.warn({ err, taskId: task.taskId }, 'MCP task status could not be published on the event bus')
    }
  }
}
