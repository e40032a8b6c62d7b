/**
 * The task store contract (tasks extension, SEP-2663) and its in-memory
 * implementation, the default.
 *
 * A store keeps task *records*: status, owner, timestamps, outstanding
 * questions to the client, recorded answers, the final result or error. The
 * *work* of a task (its handler's promise) lives in the one process that
 * started it; every other process only reads and changes the record. So the
 * store is where requests meet: `tasks/update` records answers and
 * `tasks/cancel` records the cancellation, on whichever instance they land,
 * and the process running the work picks them up (see lib/tasks/ for how it
 * hears of them).
 *
 * Every method is async (a shared store is remote) and every transition is
 * atomic: terminal states (`completed`, `failed`, `cancelled`) are final, a
 * task is readable by `get` as soon as `create` resolves, and reads are bound
 * to the owner (another owner finds nothing, so one caller cannot even learn
 * that another's task exists).
 *
 * Bounds: tasks in all (`maxTasks`), tasks per owner (`maxTasksPerOwner`, so
 * one caller cannot fill the store for everyone), bytes per task
 * (`maxTaskBytes`: its questions, answers and result, as JSON) and bytes in
 * all (`maxStoredBytes`). Finished tasks make room first, oldest first; a
 * result that cannot be kept turns its task into a failed one that says why.
 * Payloads are kept as JSON text: the size counted is the size held, and
 * nothing the handler still references is pinned by the store.
 */
import { randomUUID } from 'node:crypto'
import type { JsonObject } from '../protocol/jsonrpc.js'

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled'])

export function isTerminal (status: string): boolean {
  return TERMINAL.has(status)
}

export interface TaskLimits {
  /** How long a task is kept after its creation, in ms (its `ttlMs`). */
  readonly ttlMs: number
  /** The `pollIntervalMs` suggested to clients. */
  readonly pollIntervalMs: number
  /** Most tasks kept at once. */
  readonly maxTasks: number
  /** Most tasks one owner may have at once. */
  readonly maxTasksPerOwner: number
  /** Most bytes (JSON) of questions, answers and result one task may hold. */
  readonly maxTaskBytes: number
  /** Most bytes (JSON) all tasks together may hold. */
  readonly maxStoredBytes: number
}

/** A task as stored: what `tasks/get` shows, plus its owner. */
export interface StoredTask {
  readonly taskId: string
  readonly owner: string
  readonly status: TaskStatus
  readonly statusMessage?: string
  readonly createdAt: string
  readonly lastUpdatedAt: string
  readonly ttlMs: number
  /** Outstanding questions to the client, by key (empty unless `input_required`). */
  readonly inputRequests: Readonly<Record<string, JsonObject>>
  readonly result?: JsonObject
  readonly error?: JsonObject
}

/** Why `create` made no task. */
export type CreateRefusal = 'full' | 'owner-full' | 'closed'

export type CreateOutcome = { ok: true, task: StoredTask } | { ok: false, reason: CreateRefusal }

/** Why `ask` recorded no question. */
export type AskRefusal = 'gone' | 'finished' | 'too-large' | 'full'

export type AskOutcome = { ok: true, task: StoredTask } | { ok: false, reason: AskRefusal }

/** A transition's result: the task as it now is, and whether this call changed it. */
export interface Change {
  readonly task: StoredTask
  readonly changed: boolean
}

export type AnswerOutcome =
  | { ok: true, task: StoredTask, accepted: readonly string[] }
  | { ok: false, reason: 'too-large' | 'full' }

export interface TaskStore {
  /** True when other processes share the records (a change may come from elsewhere). */
  readonly shared: boolean
  /** Creates a working task; it is readable by `get` once this resolves. */
  create (owner: string): Promise<CreateOutcome>
  /** The task, only for its owner. */
  get (taskId: string, owner: string): Promise<StoredTask | undefined>
  /** Records a question to the client under `key`; the task becomes `input_required`. */
  ask (taskId: string, key: string, request: JsonObject): Promise<AskOutcome>
  /**
   * Records answers (`tasks/update`) for keys still outstanding, ignoring the
   * others: each answered key leaves `inputRequests` and waits for
   * `takeAnswers`; with none left the task is `working` again. Undefined
   * when the owner has no such task.
   */
  answer (taskId: string, owner: string, answers: Readonly<Record<string, JsonObject>>): Promise<AnswerOutcome | undefined>
  /** Hands over, and forgets, the answers recorded for a task (the running work consumes them). */
  takeAnswers (taskId: string): Promise<Record<string, JsonObject>>
  /** Sets the status message of an unfinished task. */
  setStatusMessage (taskId: string, message: string): Promise<Change | undefined>
  /**
   * Completes an unfinished task with its result; a result that cannot be
   * kept (not a JSON object, over `maxTaskBytes`, no room left) fails the
   * task instead, with a message saying why.
   */
  complete (taskId: string, result: JsonObject): Promise<Change | undefined>
  /** Fails an unfinished task with a JSON-RPC error object. */
  fail (taskId: string, error: JsonObject, statusMessage: string): Promise<Change | undefined>
  /** Cancels the owner's task unless it is finished; undefined when the owner has no such task. */
  cancel (taskId: string, owner: string, statusMessage: string): Promise<Change | undefined>
  /** Releases what the store holds (timers, connections it owns). */
  close (): Promise<void>
}

/** Builds an endpoint's task store from its limits (the `scale.taskStore` option). */
export type TaskStoreFactory = (limits: TaskLimits) => TaskStore

/** JSON-RPC error code for a task whose result could not be kept. */
const INTERNAL_ERROR = -32603

/** The JSON text of a plain JSON object, or undefined (BigInt, cycles, a `toJSON` returning something else). */
export function encodeObject (value: unknown): string | undefined {
  let text: string | undefined
  try {
    text = JSON.stringify(value)
  } catch {
    return undefined
  }
  return typeof text === 'string' && text.charCodeAt(0) === 0x7b ? text : undefined
}

/** What a task that cannot keep its result stores instead: the error and its status message. */
export function unkeptResult (why: string): { error: JsonObject, statusMessage: string } {
  const message = `The task's result could not be kept: ${why}`
  return { error: { code: INTERNAL_ERROR, message }, statusMessage: message }
}

export function tooLargeReason (bytes: number, limit: number): string {
  return `it is ${bytes} bytes of JSON, over the limit of ${limit} bytes per task`
}

export const NOT_JSON_REASON = 'it is not a JSON object'
export const STORE_FULL_REASON = 'the task store has no room left for it'

/** The UTF-8 size of a string, fast for ASCII. */
function byteSize (text: string): number {
  return Buffer.byteLength(text)
}

interface MemoryRecord {
  readonly taskId: string
  readonly owner: string
  status: TaskStatus
  statusMessage: string | undefined
  readonly createdAt: string
  lastUpdatedAt: string
  readonly ttlMs: number
  /** Outstanding questions, as JSON text, by key. */
  readonly inputRequests: Map<string, string>
  /** Recorded answers not yet taken, as JSON text, by key. */
  readonly answers: Map<string, string>
  result: string | undefined
  error: string | undefined
  /** Bytes of JSON this record holds (questions, answers, result or error). */
  bytes: number
  timer: NodeJS.Timeout | undefined
}

/**
 * One process's store (the default): a Map in insertion (= creation) order,
 * an unref'd timer per task for its TTL.
 */
export class MemoryTaskStore implements TaskStore {
  readonly shared = false
  readonly #limits: TaskLimits
  readonly #tasks = new Map<string, MemoryRecord>()
  readonly #perOwner = new Map<string, number>()
  #bytes = 0
  #closed = false

  constructor (limits: TaskLimits) {
    this.#limits = limits
  }

  /** Tasks held (finished ones included). */
  get size (): number {
    return this.#tasks.size
  }

  /** Bytes of JSON held by all tasks. */
  get bytes (): number {
    return this.#bytes
  }

  async create (owner: string): Promise<CreateOutcome> {
    if (this.#closed) return { ok: false, reason: 'closed' }
    const limits = this.#limits
    if ((this.#perOwner.get(owner) ?? 0) >= limits.maxTasksPerOwner && !this.#evictFinished(owner)) return { ok: false, reason: 'owner-full' }
    if (this.#tasks.size >= limits.maxTasks && !this.#evictFinished(undefined)) return { ok: false, reason: 'full' }
    const now = new Date().toISOString()
    const record: MemoryRecord = {
      taskId: randomUUID(),
      owner,
      status: 'working',
      statusMessage: undefined,
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: limits.ttlMs,
      inputRequests: new Map(),
      answers: new Map(),
      result: undefined,
      error: undefined,
      bytes: 0,
      timer: undefined
    }
    record.timer = setTimeout(() => this.#delete(record), limits.ttlMs)
    record.timer.unref()
    this.#tasks.set(record.taskId, record)
    this.#perOwner.set(owner, (this.#perOwner.get(owner) ?? 0) + 1)
    return { ok: true, task: view(record) }
  }

  async get (taskId: string, owner: string): Promise<StoredTask | undefined> {
    const record = this.#tasks.get(taskId)
    return record !== undefined && record.owner === owner ? view(record) : undefined
  }

  async ask (taskId: string, key: string, request: JsonObject): Promise<AskOutcome> {
    const record = this.#tasks.get(taskId)
    if (record === undefined) return { ok: false, reason: 'gone' }
    if (isTerminal(record.status)) return { ok: false, reason: 'finished' }
    const text = encodeObject(request)
    if (text === undefined) return { ok: false, reason: 'too-large' }
    const size = byteSize(text) - byteSize(record.inputRequests.get(key) ?? '')
    const room = this.#room(record, size)
    if (room !== undefined) return { ok: false, reason: room }
    record.inputRequests.set(key, text)
    this.#grow(record, size)
    record.status = 'input_required'
    touch(record)
    return { ok: true, task: view(record) }
  }

  async answer (taskId: string, owner: string, answers: Readonly<Record<string, JsonObject>>): Promise<AnswerOutcome | undefined> {
    const record = this.#tasks.get(taskId)
    if (record === undefined || record.owner !== owner) return undefined
    const accepted: Array<[string, string]> = []
    let size = 0
    if (!isTerminal(record.status)) {
      for (const [key, answer] of Object.entries(answers)) {
        const asked = record.inputRequests.get(key)
        if (asked === undefined) continue
        const text = encodeObject(answer)
        if (text === undefined) return { ok: false, reason: 'too-large' }
        accepted.push([key, text])
        size += byteSize(text) - byteSize(asked)
      }
    }
    if (accepted.length === 0) return { ok: true, task: view(record), accepted: [] }
    const room = this.#room(record, size)
    if (room !== undefined) return { ok: false, reason: room }
    for (const [key, text] of accepted) {
      record.inputRequests.delete(key)
      record.answers.set(key, text)
    }
    this.#grow(record, size)
    if (record.inputRequests.size === 0) record.status = 'working'
    touch(record)
    return { ok: true, task: view(record), accepted: accepted.map(([key]) => key) }
  }

  async takeAnswers (taskId: string): Promise<Record<string, JsonObject>> {
    const record = this.#tasks.get(taskId)
    const out: Record<string, JsonObject> = {}
    if (record === undefined || record.answers.size === 0) return out
    let size = 0
    for (const [key, text] of record.answers) {
      out[key] = JSON.parse(text) as JsonObject
      size += byteSize(text)
    }
    record.answers.clear()
    this.#grow(record, -size)
    return out
  }

  async setStatusMessage (taskId: string, message: string): Promise<Change | undefined> {
    const record = this.#tasks.get(taskId)
    if (record === undefined) return undefined
    if (isTerminal(record.status) || record.statusMessage === message) return { task: view(record), changed: false }
    record.statusMessage = message
    touch(record)
    return { task: view(record), changed: true }
  }

  async complete (taskId: string, result: JsonObject): Promise<Change | undefined> {
    const record = this.#tasks.get(taskId)
    if (record === undefined) return undefined
    if (isTerminal(record.status)) return { task: view(record), changed: false }
    const text = encodeObject(result)
    if (text === undefined) return this.#failUnkept(record, NOT_JSON_REASON)
    const size = byteSize(text)
    if (size > this.#limits.maxTaskBytes) return this.#failUnkept(record, tooLargeReason(size, this.#limits.maxTaskBytes))
    this.#clearPayload(record)
    if (this.#room(record, size) !== undefined) return this.#failUnkept(record, STORE_FULL_REASON)
    record.result = text
    this.#grow(record, size)
    return this.#finish(record, 'completed', undefined)
  }

  async fail (taskId: string, error: JsonObject, statusMessage: string): Promise<Change | undefined> {
    const record = this.#tasks.get(taskId)
    if (record === undefined) return undefined
    if (isTerminal(record.status)) return { task: view(record), changed: false }
    this.#clearPayload(record)
    const text = encodeObject(error)
    if (text === undefined) return this.#failUnkept(record, NOT_JSON_REASON)
    const size = byteSize(text)
    // An error too big to keep still fails the task, with a short error instead.
    if (size > this.#limits.maxTaskBytes || this.#room(record, size) !== undefined) {
      return this.#failUnkept(record, size > this.#limits.maxTaskBytes ? tooLargeReason(size, this.#limits.maxTaskBytes) : STORE_FULL_REASON)
    }
    record.error = text
    this.#grow(record, size)
    return this.#finish(record, 'failed', statusMessage)
  }

  async cancel (taskId: string, owner: string, statusMessage: string): Promise<Change | undefined> {
    const record = this.#tasks.get(taskId)
    if (record === undefined || record.owner !== owner) return undefined
    if (isTerminal(record.status)) return { task: view(record), changed: false }
    this.#clearPayload(record)
    return this.#finish(record, 'cancelled', statusMessage)
  }

  async close (): Promise<void> {
    this.#closed = true
    for (const record of this.#tasks.values()) clearTimeout(record.timer)
    this.#tasks.clear()
    this.#perOwner.clear()
    this.#bytes = 0
  }

  #finish (record: MemoryRecord, status: TaskStatus, statusMessage: string | undefined): Change {
    record.status = status
    record.statusMessage = statusMessage
    touch(record)
    return { task: view(record), changed: true }
  }

  /** The short failure kept when a result cannot be (its own size is small and always fits). */
  #failUnkept (record: MemoryRecord, why: string): Change {
    this.#clearPayload(record)
    const { error, statusMessage } = unkeptResult(why)
    const text = JSON.stringify(error)
    record.error = text
    this.#grow(record, byteSize(text))
    return this.#finish(record, 'failed', statusMessage)
  }

  /** Drops questions and answers (a finished task keeps only its result or error). */
  #clearPayload (record: MemoryRecord): void {
    let size = 0
    for (const text of record.inputRequests.values()) size += byteSize(text)
    for (const text of record.answers.values()) size += byteSize(text)
    record.inputRequests.clear()
    record.answers.clear()
    this.#grow(record, -size)
  }

  /** Why `size` more bytes cannot go into `record`, after making room by evicting finished tasks; undefined when they can. */
  #room (record: MemoryRecord, size: number): 'too-large' | 'full' | undefined {
    if (size <= 0) return undefined
    if (record.bytes + size > this.#limits.maxTaskBytes) return 'too-large'
    while (this.#bytes + size > this.#limits.maxStoredBytes) {
      if (!this.#evictFinished(undefined, record)) return 'full'
    }
    return undefined
  }

  #grow (record: MemoryRecord, size: number): void {
    record.bytes += size
    this.#bytes += size
  }

  /** Drops the oldest finished task (of `owner` when given, never `keep`); false when there is none. */
  #evictFinished (owner: string | undefined, keep?: MemoryRecord): boolean {
    for (const record of this.#tasks.values()) {
      if (!isTerminal(record.status) || record === keep || (owner !== undefined && record.owner !== owner)) continue
      this.#delete(record)
      return true
    }
    return false
  }

  #delete (record: MemoryRecord): void {
    if (this.#tasks.get(record.taskId) !== record) return
    clearTimeout(record.timer)
    this.#tasks.delete(record.taskId)
    this.#bytes -= record.bytes
    const left = (this.#perOwner.get(record.owner) ?? 1) - 1
    if (left === 0) this.#perOwner.delete(record.owner)
    else this.#perOwner.set(record.owner, left)
  }
}

function touch (record: MemoryRecord): void {
  record.lastUpdatedAt = new Date().toISOString()
}

function view (record: MemoryRecord): StoredTask {
  const inputRequests: Record<string, JsonObject> = {}
  for (const [key, text] of record.inputRequests) inputRequests[key] = JSON.parse(text) as JsonObject
  return {
    taskId: record.taskId,
    owner: record.owner,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: record.createdAt,
    lastUpdatedAt: record.lastUpdatedAt,
    ttlMs: record.ttlMs,
    inputRequests,
    ...(record.result !== undefined && { result: JSON.parse(record.result) as JsonObject }),
    ...(record.error !== undefined && { error: JSON.parse(record.error) as JsonObject })
  }
}
