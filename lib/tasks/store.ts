/**
 * The in-memory store behind the tasks extension (SEP-2663): one per
 * endpoint, bounded in count, each task dropped when its `ttlMs` elapses
 * (an unref'd timer per task, cleared when the task goes). A task belongs to
 * the caller that created it (`owner`, a digest of its credential): lookups
 * with another owner find nothing, so one caller cannot even learn that
 * another's task exists. Task ids are random UUIDs (122 bits), unguessable.
 */
import { randomUUID } from 'node:crypto'
import { answerProblem, type ClientRequestMethod, type InputRequest } from '../protocol/client-requests.js'
import { rejected } from '../input/client-requests.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { JsonObject } from '../protocol/jsonrpc.js'

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

export interface TaskLimits {
  /** How long a task is kept after its creation, in ms (its `ttlMs`). */
  readonly ttlMs: number
  /** The `pollIntervalMs` suggested to clients. */
  readonly pollIntervalMs: number
  /** Most tasks kept at once; finished ones are evicted first, oldest first. */
  readonly maxTasks: number
}

interface Waiter {
  readonly method: ClientRequestMethod
  resolve: (answer: JsonObject) => void
  reject: (reason: unknown) => void
}

export class TaskRecord {
  readonly taskId = randomUUID()
  readonly owner: string
  readonly createdAt: string
  readonly ttlMs: number
  lastUpdatedAt: string
  status: TaskStatus = 'working'
  statusMessage: string | undefined
  result: JsonObject | undefined
  error: JsonObject | undefined
  /** Outstanding requests to the client, by key; answered keys leave. */
  readonly inputRequests = new Map<string, InputRequest>()
  readonly waiters = new Map<string, Waiter>()
  /** Every key this task ever used: a key is never reused over a task's lifetime. */
  readonly usedKeys = new Set<string>()
  readonly controller = new AbortController()
  timer: NodeJS.Timeout | undefined

  constructor (owner: string, ttlMs: number) {
    this.owner = owner
    this.ttlMs = ttlMs
    this.createdAt = this.lastUpdatedAt = new Date().toISOString()
  }

  get terminal (): boolean {
    return this.status === 'completed' || this.status === 'failed' || this.status === 'cancelled'
  }

  touch (): void {
    this.lastUpdatedAt = new Date().toISOString()
  }
}

export class TaskStore {
  readonly limits: TaskLimits
  readonly #tasks = new Map<string, TaskRecord>()
  #closed = false

  constructor (limits: TaskLimits) {
    this.limits = limits
  }

  get size (): number {
    return this.#tasks.size
  }

  /** A new working task, or undefined when the store is full of unfinished tasks (or closed). */
  create (owner: string): TaskRecord | undefined {
    if (this.#closed) return undefined
    if (this.#tasks.size >= this.limits.maxTasks && !this.#evictFinished()) return undefined
    const record = new TaskRecord(owner, this.limits.ttlMs)
    record.timer = setTimeout(() => this.#expire(record), this.limits.ttlMs)
    record.timer.unref()
    this.#tasks.set(record.taskId, record)
    return record
  }

  /** The task, only for the owner that created it. */
  get (taskId: string, owner: string): TaskRecord | undefined {
    const record = this.#tasks.get(taskId)
    return record !== undefined && record.owner === owner ? record : undefined
  }

  complete (record: TaskRecord, result: JsonObject): void {
    if (!this.#settle(record)) return
    record.status = 'completed'
    record.result = result
  }

  fail (record: TaskRecord, error: JsonObject, statusMessage: string): void {
    if (!this.#settle(record)) return
    record.status = 'failed'
    record.error = error
    record.statusMessage = statusMessage
  }

  /** Cancels an unfinished task: its signal aborts and pending questions are rejected. */
  cancel (record: TaskRecord, statusMessage: string): void {
    if (!this.#settle(record)) return
    record.status = 'cancelled'
    record.statusMessage = statusMessage
    record.controller.abort(new Error(statusMessage))
  }

  /** Parks the task on a question to the client; resolves with the answer `tasks/update` brings. */
  ask (record: TaskRecord, key: string, request: InputRequest): Promise<JsonObject> {
    if (record.terminal || !this.#tasks.has(record.taskId)) {
      return rejected(new Error(`task ${record.taskId} is ${record.terminal ? record.status : 'gone'}`))
    }
    const promise = new Promise<JsonObject>((resolve, reject) => {
      record.inputRequests.set(key, request)
      record.waiters.set(key, { method: request.method, resolve, reject })
      record.status = 'input_required'
      record.touch()
    })
    // A task that never awaits its question must not crash the process when the task ends.
    promise.catch(() => {})
    return promise
  }

  /**
   * Applies `tasks/update` answers: keys not outstanding are ignored; a
   * malformed answer to an outstanding key rejects the whole update (the
   * returned problem) and applies nothing.
   */
  answer (record: TaskRecord, responses: JsonObject): string | undefined {
    const accepted: Array<[string, Waiter, JsonObject]> = []
    for (const [key, answer] of Object.entries(responses)) {
      const waiter = record.waiters.get(key)
      if (waiter === undefined) continue
      if (!isJsonObject(answer)) return `inputResponses[${JSON.stringify(key)}] must be a result object`
      const problem = answerProblem(waiter.method, answer)
      if (problem !== undefined) return `inputResponses[${JSON.stringify(key)}] ${problem}`
      accepted.push([key, waiter, answer])
    }
    if (accepted.length === 0) return undefined
    for (const [key, waiter, answer] of accepted) {
      record.waiters.delete(key)
      record.inputRequests.delete(key)
      waiter.resolve(answer)
    }
    if (record.status === 'input_required' && record.inputRequests.size === 0) record.status = 'working'
    record.touch()
    return undefined
  }

  /** Ends every task (their signals abort) and clears all timers. */
  close (): void {
    this.#closed = true
    for (const record of this.#tasks.values()) this.#drop(record, 'the server is shutting down')
    this.#tasks.clear()
  }

  /** Marks a task finished; false when it already was (a cancelled task ignores its late result). */
  #settle (record: TaskRecord): boolean {
    if (record.terminal) return false
    this.#rejectWaiters(record, 'the task finished')
    record.touch()
    return true
  }

  #rejectWaiters (record: TaskRecord, reason: string): void {
    for (const waiter of record.waiters.values()) waiter.reject(new Error(`${reason} before the client answered`))
    record.waiters.clear()
    record.inputRequests.clear()
  }

  #drop (record: TaskRecord, reason: string): void {
    clearTimeout(record.timer)
    record.timer = undefined
    this.#rejectWaiters(record, reason)
    if (!record.controller.signal.aborted) record.controller.abort(new Error(reason))
  }

  #expire (record: TaskRecord): void {
    this.#drop(record, 'the task expired')
    this.#tasks.delete(record.taskId)
  }

  #evictFinished (): boolean {
    for (const record of this.#tasks.values()) {
      if (!record.terminal) continue
      this.#drop(record, 'evicted')
      this.#tasks.delete(record.taskId)
      return true
    }
    return false
  }
}
