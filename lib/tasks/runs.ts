/**
 * The work of tasks running in this process, and how it hears what happens
 * to its task elsewhere.
 *
 * A task's record is in the store, shared by every instance; its work (the
 * handler's promise, its `AbortController`, the questions it awaits) is here,
 * in the process that started it. `tasks/update` and `tasks/cancel` may land
 * on any instance: they change the record and publish the task's new state
 * as a `taskStatus` event on the event bus. Every instance hears every event
 * and hands it to `observe`, which acts only for work running here:
 *
 * - a finished task (cancelled by the client, or finished by the store) ends
 *   its work: `ctx.signal` aborts and pending questions reject;
 * - a question awaited here that left `inputRequests` was answered: the
 *   answers are taken from the store (atomically, so exactly once) and the
 *   awaiting `ctx.elicit()` resolves.
 *
 * A bus may lose a message (a shared one across a reconnect). With a shared
 * store, a safety net re-reads the records of the work running here every
 * `RESYNC_MS` and observes them the same way, so a lost event delays an
 * answer or a cancellation, never loses it. The memory store needs none:
 * every change happens in this process and is observed at once.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { isTerminal, type TaskStore } from '../parts/task-store.js'

/** How often work running here re-reads its records from a shared store. */
export const RESYNC_MS = 2000

interface Waiter {
  resolve: (answer: JsonObject) => void
  reject: (reason: unknown) => void
}

/** One task's work in this process. */
export class TaskRun {
  readonly taskId: string
  readonly owner: string
  readonly controller = new AbortController()
  /** Questions awaiting an answer, by key. */
  readonly waiters = new Map<string, Waiter>()
  /** Every key this task ever used: a key is never reused over a task's lifetime. */
  readonly usedKeys = new Set<string>()
  timer: NodeJS.Timeout | undefined
  ended = false

  constructor (taskId: string, owner: string) {
    this.taskId = taskId
    this.owner = owner
  }
}

/** What `observe` needs of a task: its wire view or its stored record. */
export interface ObservedTask {
  readonly taskId?: unknown
  readonly status?: unknown
  readonly inputRequests?: unknown
}

export class TaskRuns {
  readonly #store: TaskStore
  readonly #log: FastifyBaseLogger
  readonly #runs = new Map<string, TaskRun>()
  #resync: NodeJS.Timeout | undefined
  #resyncing = false

  constructor (store: TaskStore, log: FastifyBaseLogger) {
    this.#store = store
    this.#log = log
  }

  get size (): number {
    return this.#runs.size
  }

  /** Registers work starting here; it ends itself when the task's TTL elapses. */
  start (taskId: string, owner: string, ttlMs: number): TaskRun {
    const run = new TaskRun(taskId, owner)
    run.timer = setTimeout(() => this.end(run, 'the task expired', true), ttlMs)
    run.timer.unref()
    this.#runs.set(taskId, run)
    if (this.#store.shared && this.#resync === undefined) {
      this.#resync = setInterval(() => { void this.#resyncAll() }, RESYNC_MS)
      this.#resync.unref()
    }
    return run
  }

  /** A promise for the answer to `key`, registered before the question is stored so no answer can slip past. */
  wait (run: TaskRun, key: string): Promise<JsonObject> {
    const promise = new Promise<JsonObject>((resolve, reject) => {
      run.waiters.set(key, { resolve, reject })
    })
    // Work that never awaits its question must not crash the process when the task ends.
    promise.catch(() => {})
    return promise
  }

  /** The question could not be stored: its waiter rejects with `reason`. */
  refuse (run: TaskRun, key: string, reason: unknown): void {
    const waiter = run.waiters.get(key)
    if (waiter === undefined) return
    run.waiters.delete(key)
    waiter.reject(reason)
  }

  /**
   * Ends work: pending questions reject with `reason`; with `abort`, the
   * work's signal aborts too (cancelled, expired, shutting down).
   */
  end (run: TaskRun, reason: string, abort: boolean): void {
    if (run.ended) return
    run.ended = true
    clearTimeout(run.timer)
    run.timer = undefined
    if (this.#runs.get(run.taskId) === run) this.#runs.delete(run.taskId)
    for (const waiter of run.waiters.values()) waiter.reject(new Error(`${reason} before the client answered`))
    run.waiters.clear()
    if (abort && !run.controller.signal.aborted) run.controller.abort(new Error(reason))
    if (this.#runs.size === 0) this.#stopResync()
  }

  /** Acts on a task's new state if its work runs here (see the file's header). */
  observe (task: ObservedTask): void {
    if (typeof task.taskId !== 'string') return
    const run = this.#runs.get(task.taskId)
    if (run === undefined || run.ended) return
    if (typeof task.status === 'string' && isTerminal(task.status)) {
      this.end(run, task.status === 'cancelled' ? 'the task was cancelled' : `the task is ${task.status}`, true)
      return
    }
    if (run.waiters.size === 0) return
    const outstanding = isJsonObject(task.inputRequests) ? task.inputRequests : {}
    for (const key of run.waiters.keys()) {
      if (!Object.hasOwn(outstanding, key)) {
        void this.#collect(run)
        return
      }
    }
  }

  /** Ends all work here (the server is closing); returns the runs that were still going. */
  close (reason: string): TaskRun[] {
    const open = [...this.#runs.values()]
    for (const run of open) this.end(run, reason, true)
    this.#stopResync()
    return open
  }

  /** Takes the answers recorded for `run` and resolves the questions they answer. */
  async #collect (run: TaskRun): Promise<void> {
    let answers: Record<string, JsonObject>
    try {
      answers = await this.#store.takeAnswers(run.taskId)
    } catch (err) {
      // The next event or resync tries again.
      this.#log.warn({ err, taskId: run.taskId }, 'MCP task answers could not be read from the task store')
      return
    }
    for (const [key, answer] of Object.entries(answers)) {
      const waiter = run.waiters.get(key)
      if (waiter === undefined) continue
      run.waiters.delete(key)
      waiter.resolve(answer)
    }
  }

  async #resyncAll (): Promise<void> {
    // A slow store must not stack ticks.
    if (this.#resyncing) return
    this.#resyncing = true
    try {
      for (const run of [...this.#runs.values()]) {
        if (run.ended) continue
        const task = await this.#store.get(run.taskId, run.owner)
        if (task === undefined) this.end(run, 'the task is gone from the task store', true)
        else this.observe(task)
      }
    } catch {
      // Store unreachable: try again on the next tick.
    } finally {
      this.#resyncing = false
    }
  }

  #stopResync (): void {
    if (this.#resync !== undefined) {
      clearInterval(this.#resync)
      this.#resync = undefined
    }
  }
}
