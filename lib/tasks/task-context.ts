/**
 * The `ctx` given to work that runs as a task (lib/tasks/run-as-task.ts):
 * questions to the client park the task (`TaskQuestions`, the service's),
 * progress messages become its status message, its signal is the run's.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { ClientAsking } from '../input/client-asking.js'
import { rejected, requireCapabilityFor } from '../input/client-requests.js'
import { type ClientRequestMethod, type ClientRequestOptions, INPUT_KEY_PREFIX } from '../protocol/client-request-wire.js'
import type { LogLevel } from '../protocol/log-level.js'
import type { Era } from '../protocol/methods.js'
import type { ClientInfo, HandlerContext, JsonObject } from '../server-module/contract.js'
import type { TaskRun } from './runs.js'
import { markTaskContext } from './task-contexts.js'

/** What a task's context asks of the tasks service. */
export interface TaskQuestions {
  /** Parks the task on a question to the client; resolves with the answer `tasks/update` brings. */
  ask (run: TaskRun, key: string, request: JsonObject): Promise<JsonObject>
  /** A progress message becomes the task's `statusMessage`. */
  setStatusMessage (run: TaskRun, message: string): void
}

/**
 * The `ctx` of work running as a task: the creating request's view, with the
 * task's signal and questions. It keeps copies of the few fields it needs,
 * never the request (whose parsed body may be large): `ctx.request` throws
 * inside a task. Read what the work needs from the request before `runAsTask`.
 */
export class TaskContext extends ClientAsking implements HandlerContext {
  readonly era: Era
  readonly protocolVersion: string
  readonly method: string
  readonly clientInfo: ClientInfo | null
  readonly clientCapabilities: JsonObject
  readonly logger: FastifyBaseLogger
  readonly requestState = undefined
  readonly #run: TaskRun
  readonly #host: TaskQuestions
  readonly #counters = new Map<ClientRequestMethod, number>()

  constructor (outer: HandlerContext, run: TaskRun, host: TaskQuestions) {
    super()
    this.#run = run
    this.#host = host
    this.era = outer.era
    this.protocolVersion = outer.protocolVersion
    this.method = outer.method
    this.clientInfo = outer.clientInfo
    this.clientCapabilities = outer.clientCapabilities
    this.logger = outer.logger.child({ taskId: run.taskId })
    markTaskContext(this)
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
    this.#host.setStatusMessage(this.#run, message)
  }

  /** The extension has no channel for log messages from a task. */
  log (_level: LogLevel, _data: unknown, _logger?: string): void {}

  protected ask (method: ClientRequestMethod, params: JsonObject, options: ClientRequestOptions | undefined): Promise<JsonObject> {
    try {
      requireCapabilityFor(method, params, this.clientCapabilities)
      const key = this.#key(method, options?.key)
      return this.#host.ask(this.#run, key, { method, params })
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
