/**
 * `subscriptions/listen` (2026-07-28): long-lived SSE streams that carry the
 * change notifications each client opted in to. The registry holds the open
 * streams, indexed by what they listen to, so a notify call touches only the
 * streams that asked. Every message on a stream carries the listen request's
 * id as `_meta["io.modelcontextprotocol/subscriptionId"]`. The legacy era's
 * standalone streams (GET, lib/streams/legacy-stream.ts) live here too, under
 * the same bounds and keep-alive: they carry the plain notifications, each
 * with an SSE event id, and end without a response.
 *
 * The registry only writes to this process's streams; changes reach it
 * through the endpoint's event bus (lib/parts/event-bus.ts), so a change made
 * on any instance sharing the bus is heard here.
 *
 * One shared, unref'd timer writes keep-alive comments to streams that were
 * quiet for a whole interval; it runs only while a stream is open. When the
 * server closes, each stream gets the final `resultType: "complete"` response
 * and ends.
 */
import type { FastifyReply } from 'fastify'
import { type ModernServerCapabilities, TASKS_EXTENSION } from '../server-module/capabilities.js'
import { SERVER_INFO_META } from '../protocol/meta.js'
import { sendError } from '../response/reply.js'
import { isJsonObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import type { Implementation as ServerInfo } from '../protocol/schemas.js'
import { DEFAULT_MAX_STREAM_BUFFER_BYTES, SseStream, sseFrame } from './sse-writer.js'
import { LIST_NAMES, type ListName } from '../protocol/methods.js'

export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId'

/** The notification types a client may opt in to (the spec's `SubscriptionFilter`). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
  /** Tasks extension (SEP-2663): `notifications/tasks` for these task ids. */
  taskIds?: string[]
}

/** The flag opting in to one list's changes. */
type ListFlag = `${ListName}ListChanged`
/** A list the method table gains needs its flag above: until then this does not compile. */
const flagsCoverLists: [ListFlag] extends [keyof SubscriptionFilter] ? true : never = true
void flagsCoverLists

/** Most task ids one listen request may name. */
export const MAX_LISTEN_TASK_IDS = 1000
/**
 * Most resource URIs one listen request may name (as many as a legacy
 * session may subscribe to): each is indexed for the stream's life, so the
 * bound keeps what one stream holds near its queued-output bound.
 */
export const MAX_LISTEN_URIS = 1000

const LIST_FLAGS: ReadonlyArray<readonly [ListName, ListFlag]> = Object.freeze(LIST_NAMES.map((list) => Object.freeze([list, `${list}ListChanged`] as const)))

/** What a legacy stream carries: the notification alone (the 2025-11-25 schemas make `params` optional here). */
const LEGACY_LIST_MESSAGES = Object.freeze(Object.fromEntries(LIST_NAMES.map((list) => [list, `{"jsonrpc":"2.0","method":"notifications/${list}/list_changed"}`]))) as Readonly<Record<ListName, string>>

function legacyUpdatedMessage (uri: string): string {
  return '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":' + JSON.stringify(uri) + '}}'
}

interface Subscription {
  readonly sse: SseStream
  /** The listen request id, serialised once ('' on a legacy stream). */
  readonly idJson: string
  readonly lists: readonly ListName[]
  /** Resources it hears `resources/updated` for (a legacy stream's follow its session's subscriptions). */
  uris: readonly string[]
  readonly taskIds: readonly string[]
  /** Who opened the stream (the tasks' owner function of its request): task events of other owners never reach it. */
  readonly caller: string | undefined
  /** Whose share of the open-stream bound it counts against (`callerOf` its request). */
  readonly limitKey: string
  /** A legacy standalone stream (GET): plain notifications, each with an event id; no subscriptionId, no final response. */
  readonly legacy: LegacyStream | undefined
  /** Written to since the last keep-alive tick. */
  active: boolean
}

interface LegacyStream {
  /** The next event id (ids only prime a reconnection: a `Last-Event-ID` sent back means "I may have missed something"). */
  nextId: number
  readonly session: string | undefined
}

/** What a legacy standalone stream hears (lib/streams/legacy-stream.ts decides it from the request). */
export interface LegacyStreamOptions {
  /** The list kinds whose `list_changed` it hears: those the legacy capabilities advertise with `listChanged: true`. */
  readonly lists: readonly ListName[]
  /** Whose share of the open-stream bound it counts against. */
  readonly limitKey: string
  /** Starts with the 2025-11-25 priming event (an id, no data), so the client resumes with `Last-Event-ID`. */
  readonly priming: boolean
  /** The client resumes (sent `Last-Event-ID`): it may have missed changes, so it is told at once that lists may have changed. */
  readonly resumed: boolean
  /** The session the stream belongs to, and the resources that session subscribed to. */
  readonly session?: string
  readonly uris?: readonly string[]
}

/** Bounds on open listen streams, and their keep-alive interval (`limits.listen`). */
export interface ListenSettings {
  maxStreams: number
  maxStreamsPerCaller: number
  /** 0 sends no keep-alive comments. */
  keepAliveMs: number
}

/**
 * JSON-RPC code of a listen request refused for too many open streams: in
 * the range JSON-RPC leaves to servers; the protocol defines none for this.
 */
export const TOO_MANY_STREAMS = -32000

/** Why a listen stream cannot be opened now: HTTP status (429 the caller's share, 503 the server's) and the error's data. */
export interface StreamRefusal {
  status: 429 | 503
  message: string
  data: { limit: number, scope: 'caller' | 'server' }
}

/** The filter of a listen request, or the reason it is not one. */
export function parseFilter (value: unknown): SubscriptionFilter | string {
  if (!isJsonObject(value)) return '"notifications" must be an object'
  const filter: SubscriptionFilter = {}
  for (const [, flag] of LIST_FLAGS) {
    const requested = value[flag]
    if (requested === undefined) continue
    if (typeof requested !== 'boolean') return `"notifications.${flag}" must be a boolean`
    filter[flag] = requested
  }
  const uris = value.resourceSubscriptions
  if (uris !== undefined) {
    if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string')) {
      return '"notifications.resourceSubscriptions" must be an array of strings'
    }
    if (uris.length > MAX_LISTEN_URIS) return `"notifications.resourceSubscriptions" may name at most ${MAX_LISTEN_URIS} resources`
    filter.resourceSubscriptions = uris
  }
  const taskIds = value.taskIds
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || !taskIds.every((taskId) => typeof taskId === 'string')) return '"notifications.taskIds" must be an array of strings'
    if (taskIds.length > MAX_LISTEN_TASK_IDS) return `"notifications.taskIds" may name at most ${MAX_LISTEN_TASK_IDS} tasks`
    filter.taskIds = taskIds
  }
  return filter
}

/** The part of a requested filter this server honours: only types its capabilities announce. */
export function honouredFilter (requested: SubscriptionFilter, capabilities: ModernServerCapabilities): SubscriptionFilter {
  const out: SubscriptionFilter = {}
  for (const [kind, flag] of LIST_FLAGS) {
    if (requested[flag] === true && capabilities[kind]?.listChanged === true) out[flag] = true
  }
  const uris = requested.resourceSubscriptions
  if (uris !== undefined && uris.length > 0 && capabilities.resources?.subscribe === true) {
    out.resourceSubscriptions = [...new Set(uris)]
  }
  // Every requested id is acknowledged (unknown ones too, so nothing tells whose tasks exist); delivery filters by owner.
  const taskIds = requested.taskIds
  if (taskIds !== undefined && taskIds.length > 0 && capabilities.extensions?.[TASKS_EXTENSION] !== undefined) {
    out.taskIds = [...new Set(taskIds)]
  }
  return out
}

export class SubscriptionRegistry {
  readonly #resultMetaTail: string
  readonly #all = new Set<Subscription>()
  readonly #lists = Object.fromEntries(LIST_NAMES.map((list) => [list, new Set<Subscription>()])) as Record<ListName, Set<Subscription>>
  readonly #uris = new Map<string, Set<Subscription>>()
  readonly #tasks = new Map<string, Set<Subscription>>()
  /** Legacy streams per session id. */
  readonly #sessions = new Map<string, Set<Subscription>>()
  readonly #listen: ListenSettings
  readonly #maxStreamBufferBytes: number
  /** Open streams per limit key (callers with none open are absent). */
  readonly #perCaller = new Map<string, number>()
  #delivered = 0
  #timer: NodeJS.Timeout | undefined
  #closed = false

  /** `listen` bounds open streams and sets their keep-alive; `maxStreamBufferBytes` bounds what one may queue for a client that does not read. */
  constructor (options: { serverInfo: Readonly<ServerInfo>, listen: ListenSettings, maxStreamBufferBytes?: number }) {
    this.#listen = options.listen
    this.#maxStreamBufferBytes = options.maxStreamBufferBytes ?? DEFAULT_MAX_STREAM_BUFFER_BYTES
    this.#resultMetaTail = ',' + JSON.stringify(SERVER_INFO_META) + ':' + JSON.stringify(options.serverInfo) + '}}}'
  }

  /** Open listen streams. */
  get size (): number {
    return this.#all.size
  }

  /** Notifications written since the registry was made (a notify call reads how many it wrote). */
  get delivered (): number {
    return this.#delivered
  }

  /** Why a stream for `limitKey` cannot be opened now, or undefined when it can. */
  refusal (limitKey: string): StreamRefusal | undefined {
    const { maxStreams, maxStreamsPerCaller } = this.#listen
    if ((this.#perCaller.get(limitKey) ?? 0) >= maxStreamsPerCaller) {
      return { status: 429, message: 'Too many open listen streams for this caller; close one first', data: { limit: maxStreamsPerCaller, scope: 'caller' } }
    }
    if (this.#all.size >= maxStreams) {
      return { status: 503, message: 'Too many open listen streams on this server; try again later', data: { limit: maxStreams, scope: 'server' } }
    }
    return undefined
  }

  /**
   * Starts the SSE response, acknowledges the honoured filter, and registers
   * the stream (of `caller`, for task events; counted against `limitKey`).
   * Check `refusal(limitKey)` first.
   */
  open (id: RequestId, filter: SubscriptionFilter, reply: FastifyReply, caller?: string, limitKey = 'anonymous'): FastifyReply {
    const idJson = JSON.stringify(id)
    const acknowledged = '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{' +
      JSON.stringify(SUBSCRIPTION_ID_META) + ':' + idJson + '},"notifications":' + JSON.stringify(filter) + '}}'
    // A frame longer than the queued-output bound would drop the stream at its first write, the request unanswered.
    if (sseFrame(acknowledged).length > this.#maxStreamBufferBytes) {
      return sendError(reply, 400, id, ErrorCode.InvalidParams, `Invalid params: the acknowledgement of these "notifications" would pass limits.maxStreamBufferBytes (${this.#maxStreamBufferBytes}); name fewer or shorter resource URIs or task ids`)
    }
    const sse = new SseStream(reply, this.#maxStreamBufferBytes)
    sse.send(acknowledged)
    if (this.#closed) {
      sse.end(this.#finalResponse(idJson))
      return reply
    }
    const lists = LIST_FLAGS.filter(([, flag]) => filter[flag] === true).map(([kind]) => kind)
    const sub: Subscription = { sse, idJson, lists, uris: filter.resourceSubscriptions ?? [], taskIds: filter.taskIds ?? [], caller, limitKey, legacy: undefined, active: true }
    this.#add(sub)
    sse.onClose(() => this.#remove(sub))
    return reply
  }

  /**
   * Starts a legacy standalone stream (GET) and registers it, under the same
   * bounds and keep-alive as listen streams. Check `refusal(limitKey)` first.
   */
  openLegacy (reply: FastifyReply, options: LegacyStreamOptions): FastifyReply {
    const sse = new SseStream(reply, this.#maxStreamBufferBytes)
    if (this.#closed) {
      sse.end()
      return reply
    }
    const legacy: LegacyStream = { nextId: 0, session: options.session }
    const sub: Subscription = { sse, idJson: '', lists: options.lists, uris: options.uris ?? [], taskIds: [], caller: undefined, limitKey: options.limitKey, legacy, active: true }
    if (options.priming) sse.sendWithId(String(legacy.nextId++), '')
    if (options.resumed) {
      for (const kind of sub.lists) sse.sendWithId(String(legacy.nextId++), LEGACY_LIST_MESSAGES[kind])
      for (const uri of sub.uris) sse.sendWithId(String(legacy.nextId++), legacyUpdatedMessage(uri))
    }
    // The client sees the stream open even when nothing is due yet.
    if (legacy.nextId === 0) sse.flushHeaders()
    this.#add(sub)
    sse.onClose(() => this.#remove(sub))
    return reply
  }

  /** Open legacy streams of `session` on this instance. */
  sessionStreams (session: string): number {
    return this.#sessions.get(session)?.size ?? 0
  }

  /** The resources `session` now subscribes to (its streams here hear `resources/updated` for exactly these). */
  setSessionUris (session: string, uris: readonly string[]): void {
    const subs = this.#sessions.get(session)
    if (subs === undefined) return
    for (const sub of [...subs]) {
      this.#unindexUris(sub)
      sub.uris = [...new Set(uris)]
      this.#indexUris(sub)
    }
  }

  /** The session ended (DELETE, expiry): its streams here end. */
  endSession (session: string): void {
    const subs = this.#sessions.get(session)
    if (subs === undefined) return
    for (const sub of [...subs]) {
      this.#remove(sub)
      sub.sse.end()
    }
  }

  /** Sends `notifications/<kind>/list_changed` to every stream that asked for it; returns how many. */
  notifyListChanged (kind: ListName): number {
    const head = '{"jsonrpc":"2.0","method":"notifications/' + kind + '/list_changed","params":{"_meta":{' + JSON.stringify(SUBSCRIPTION_ID_META) + ':'
    return this.#fanOut(this.#lists[kind], head, '}}}', LEGACY_LIST_MESSAGES[kind])
  }

  /** Sends `notifications/resources/updated` to every stream subscribed to `uri`; returns how many. */
  notifyResourceUpdated (uri: string): number {
    const subs = this.#uris.get(uri)
    if (subs === undefined) return 0
    const head = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{' + JSON.stringify(SUBSCRIPTION_ID_META) + ':'
    return this.#fanOut(subs, head, '},"uri":' + JSON.stringify(uri) + '}}', legacyUpdatedMessage(uri))
  }

  /**
   * After events may have been lost (the event bus was cut off and is back):
   * `list_changed` for every list kind to the streams that asked for it, and
   * `resources/updated` for every subscribed URI, so each client re-reads
   * what it follows. Returns how many notifications were written.
   */
  notifyAllMayHaveChanged (): number {
    let sent = 0
    for (const kind of Object.keys(this.#lists) as ListName[]) sent += this.notifyListChanged(kind)
    for (const uri of [...this.#uris.keys()]) sent += this.notifyResourceUpdated(uri)
    return sent
  }

  /**
   * Sends `notifications/tasks` (the task's wire view) to the streams of
   * `owner` that listen to its id; returns how many.
   */
  notifyTaskStatus (owner: string, task: JsonObject): number {
    const subs = typeof task.taskId === 'string' ? this.#tasks.get(task.taskId) : undefined
    if (subs === undefined) return 0
    let body: string
    try {
      body = JSON.stringify(task)
    } catch {
      return 0
    }
    const head = '{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{' + JSON.stringify(SUBSCRIPTION_ID_META) + ':'
    const tail = body.length > 2 ? '},' + body.slice(1) + '}' : '}}}'
    let sent = 0
    for (const sub of subs) {
      if (sub.caller !== owner) continue
      if (sub.sse.send(head + sub.idJson + tail)) {
        sub.active = true
        sent++
      }
    }
    this.#delivered += sent
    return sent
  }

  /** Ends every stream with its final response; later listen requests are answered and ended at once. */
  close (): void {
    this.#closed = true
    this.#stopTimer()
    for (const sub of this.#all) {
      this.#remove(sub)
      // A legacy stream just ends (no response may travel on it); its client reconnects elsewhere and is told lists may have changed.
      sub.sse.end(sub.legacy === undefined ? this.#finalResponse(sub.idJson) : undefined)
    }
  }

  #finalResponse (idJson: string): string {
    return '{"jsonrpc":"2.0","id":' + idJson + ',"result":{"resultType":"complete","_meta":{' +
      JSON.stringify(SUBSCRIPTION_ID_META) + ':' + idJson + this.#resultMetaTail
  }

  #fanOut (subs: ReadonlySet<Subscription>, head: string, tail: string, legacyMessage: string): number {
    let sent = 0
    for (const sub of subs) {
      const legacy = sub.legacy
      if (legacy === undefined ? sub.sse.send(head + sub.idJson + tail) : sub.sse.sendWithId(String(legacy.nextId++), legacyMessage)) {
        sub.active = true
        sent++
      }
    }
    this.#delivered += sent
    return sent
  }

  #add (sub: Subscription): void {
    this.#all.add(sub)
    this.#perCaller.set(sub.limitKey, (this.#perCaller.get(sub.limitKey) ?? 0) + 1)
    for (const kind of sub.lists) this.#lists[kind].add(sub)
    this.#indexUris(sub)
    const session = sub.legacy?.session
    if (session !== undefined) {
      let subs = this.#sessions.get(session)
      if (subs === undefined) this.#sessions.set(session, subs = new Set())
      subs.add(sub)
    }
    for (const taskId of sub.taskIds) {
      let subs = this.#tasks.get(taskId)
      if (subs === undefined) this.#tasks.set(taskId, subs = new Set())
      subs.add(sub)
    }
    if (this.#timer === undefined && this.#listen.keepAliveMs > 0) {
      this.#timer = setInterval(() => this.#keepAlive(), this.#listen.keepAliveMs)
      this.#timer.unref()
    }
  }

  #remove (sub: Subscription): void {
    if (!this.#all.delete(sub)) return
    const left = (this.#perCaller.get(sub.limitKey) ?? 1) - 1
    if (left > 0) this.#perCaller.set(sub.limitKey, left)
    else this.#perCaller.delete(sub.limitKey)
    for (const kind of sub.lists) this.#lists[kind].delete(sub)
    this.#unindexUris(sub)
    const session = sub.legacy?.session
    if (session !== undefined) {
      const subs = this.#sessions.get(session)
      if (subs !== undefined && subs.delete(sub) && subs.size === 0) this.#sessions.delete(session)
    }
    for (const taskId of sub.taskIds) {
      const subs = this.#tasks.get(taskId)
      if (subs !== undefined && subs.delete(sub) && subs.size === 0) this.#tasks.delete(taskId)
    }
    if (this.#all.size === 0) this.#stopTimer()
  }

  #indexUris (sub: Subscription): void {
    for (const uri of sub.uris) {
      let subs = this.#uris.get(uri)
      if (subs === undefined) this.#uris.set(uri, subs = new Set())
      subs.add(sub)
    }
  }

  #unindexUris (sub: Subscription): void {
    for (const uri of sub.uris) {
      const subs = this.#uris.get(uri)
      if (subs !== undefined && subs.delete(sub) && subs.size === 0) this.#uris.delete(uri)
    }
  }

  #keepAlive (): void {
    for (const sub of this.#all) {
      if (!sub.active) sub.sse.comment()
      sub.active = false
    }
  }

  #stopTimer (): void {
    if (this.#timer !== undefined) {
      clearInterval(this.#timer)
      this.#timer = undefined
    }
  }
}

/** Answers a `subscriptions/listen` request: checks its filter, then opens the stream. */
export function createListenResponder (registry: SubscriptionRegistry, capabilities: ModernServerCapabilities) {
  return function respondListen (id: RequestId, params: Record<string, unknown>, reply: FastifyReply, caller?: string, limitKey = 'anonymous'): FastifyReply {
    const filter = parseFilter(params.notifications)
    if (typeof filter === 'string') return sendError(reply, 400, id, ErrorCode.InvalidParams, `Invalid params: ${filter}`)
    const refused = registry.refusal(limitKey)
    if (refused !== undefined) return sendError(reply, refused.status, id, TOO_MANY_STREAMS, refused.message, refused.data)
    return registry.open(id, honouredFilter(filter, capabilities), reply, caller, limitKey)
  }
}
