/**
 * `subscriptions/listen` (2026-07-28): long-lived SSE streams that carry the
 * change notifications each client opted in to. The registry holds the open
 * streams, indexed by what they listen to, so a notify call touches only the
 * streams that asked. Every message on a stream carries the listen request's
 * id as `_meta["io.modelcontextprotocol/subscriptionId"]`.
 *
 * The registry only writes to this process's streams; changes reach it
 * through the endpoint's event bus (lib/scale/event-bus.ts), so a change made
 * on any instance sharing the bus is heard here. Task status notifications
 * (`notifications/tasks`, tasks extension) go only to streams that listed the
 * task's id and belong to the task's owner.
 *
 * One shared, unref'd timer writes keep-alive comments to streams that were
 * quiet for a whole interval; it runs only while a stream is open. When the
 * server closes, each stream gets the final `resultType: "complete"` response
 * and ends.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { TASKS_EXTENSION, type ModernServerCapabilities } from '../capabilities/build.js'
import { SERVER_INFO_META } from '../protocol/meta.js'
import { sendError } from '../response/reply.js'
import { isJsonObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import type { Implementation as ServerInfo } from '../protocol/schemas.js'
import { SseStream } from './sse.js'

export const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId'

/** The notification types a client may opt in to (the spec's `SubscriptionFilter`). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean
  promptsListChanged?: boolean
  resourcesListChanged?: boolean
  resourceSubscriptions?: string[]
  /** Tasks extension: the task ids whose status changes the client wants pushed. */
  taskIds?: string[]
}

export type ListKind = 'tools' | 'prompts' | 'resources'

const LIST_FLAGS = Object.freeze([
  ['tools', 'toolsListChanged'],
  ['prompts', 'promptsListChanged'],
  ['resources', 'resourcesListChanged']
] as const)

const LIST_METHODS: Readonly<Record<ListKind, string>> = Object.freeze({
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed'
})

interface Subscription {
  readonly sse: SseStream
  /** The listen request id, serialised once. */
  readonly idJson: string
  readonly lists: readonly ListKind[]
  readonly uris: readonly string[]
  readonly taskIds: readonly string[]
  /** Who opened the stream: task notifications go only to the task's owner. */
  readonly caller: string
  /** Written to since the last keep-alive tick. */
  active: boolean
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
    filter.resourceSubscriptions = uris
  }
  const taskIds = value.taskIds
  if (taskIds !== undefined) {
    if (!Array.isArray(taskIds) || !taskIds.every((id) => typeof id === 'string')) {
      return '"notifications.taskIds" must be an array of strings'
    }
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
  const taskIds = requested.taskIds
  if (taskIds !== undefined && taskIds.length > 0 && capabilities.extensions?.[TASKS_EXTENSION] !== undefined) {
    out.taskIds = [...new Set(taskIds)]
  }
  return out
}

export class SubscriptionRegistry {
  readonly #keepAliveMs: number
  readonly #resultMetaTail: string
  readonly #all = new Set<Subscription>()
  readonly #lists: Record<ListKind, Set<Subscription>> = { tools: new Set(), prompts: new Set(), resources: new Set() }
  readonly #uris = new Map<string, Set<Subscription>>()
  readonly #tasks = new Map<string, Set<Subscription>>()
  #delivered = 0
  #timer: NodeJS.Timeout | undefined
  #closed = false

  /** `keepAliveMs: 0` sends no keep-alive comments. */
  constructor (options: { keepAliveMs: number, serverInfo: Readonly<ServerInfo> }) {
    this.#keepAliveMs = options.keepAliveMs
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

  /** Starts the SSE response, acknowledges the honoured filter, and registers the stream of `caller`. */
  open (id: RequestId, filter: SubscriptionFilter, reply: FastifyReply, caller: string): FastifyReply {
    const sse = new SseStream(reply)
    const idJson = JSON.stringify(id)
    sse.send('{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{' +
      JSON.stringify(SUBSCRIPTION_ID_META) + ':' + idJson + '},"notifications":' + JSON.stringify(filter) + '}}')
    if (this.#closed) {
      sse.end(this.#finalResponse(idJson))
      return reply
    }
    const lists = LIST_FLAGS.filter(([, flag]) => filter[flag] === true).map(([kind]) => kind)
    const sub: Subscription = { sse, idJson, lists, uris: filter.resourceSubscriptions ?? [], taskIds: filter.taskIds ?? [], caller, active: true }
    this.#add(sub)
    sse.onClose(() => this.#remove(sub))
    return reply
  }

  /** Sends `notifications/<kind>/list_changed` to every stream that asked for it; returns how many. */
  notifyListChanged (kind: ListKind): number {
    const head = '{"jsonrpc":"2.0","method":"' + LIST_METHODS[kind] + '","params":{"_meta":{' + JSON.stringify(SUBSCRIPTION_ID_META) + ':'
    return this.#fanOut(this.#lists[kind], head, '}}}')
  }

  /** Sends `notifications/resources/updated` to every stream subscribed to `uri`; returns how many. */
  notifyResourceUpdated (uri: string): number {
    const subs = this.#uris.get(uri)
    if (subs === undefined) return 0
    const head = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"_meta":{' + JSON.stringify(SUBSCRIPTION_ID_META) + ':'
    return this.#fanOut(subs, head, '},"uri":' + JSON.stringify(uri) + '}}')
  }

  /**
   * Sends `notifications/tasks` (params: the wire Task) to the streams of
   * `owner` that listen to the task's id; returns how many.
   */
  notifyTaskStatus (owner: string, task: JsonObject): number {
    const taskId = task.taskId
    if (typeof taskId !== 'string') return 0
    const subs = this.#tasks.get(taskId)
    if (subs === undefined) return 0
    const taskMeta = isJsonObject(task._meta) ? task._meta : {}
    let sent = 0
    for (const sub of subs) {
      if (sub.caller !== owner) continue
      // Rare and few: built per stream, with the task's own _meta kept beside the subscription id.
      const params = { ...task, _meta: { ...taskMeta, [SUBSCRIPTION_ID_META]: JSON.parse(sub.idJson) as RequestId } }
      if (sub.sse.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tasks', params }))) {
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
      sub.sse.end(this.#finalResponse(sub.idJson))
    }
  }

  #finalResponse (idJson: string): string {
    return '{"jsonrpc":"2.0","id":' + idJson + ',"result":{"resultType":"complete","_meta":{' +
      JSON.stringify(SUBSCRIPTION_ID_META) + ':' + idJson + this.#resultMetaTail
  }

  #fanOut (subs: ReadonlySet<Subscription>, head: string, tail: string): number {
    let sent = 0
    for (const sub of subs) {
      if (sub.sse.send(head + sub.idJson + tail)) {
        sub.active = true
        sent++
      }
    }
    this.#delivered += sent
    return sent
  }

  #add (sub: Subscription): void {
    this.#all.add(sub)
    for (const kind of sub.lists) this.#lists[kind].add(sub)
    for (const uri of sub.uris) {
      let subs = this.#uris.get(uri)
      if (subs === undefined) this.#uris.set(uri, subs = new Set())
      subs.add(sub)
    }
    for (const taskId of sub.taskIds) {
      let subs = this.#tasks.get(taskId)
      if (subs === undefined) this.#tasks.set(taskId, subs = new Set())
      subs.add(sub)
    }
    if (this.#timer === undefined && this.#keepAliveMs > 0) {
      this.#timer = setInterval(() => this.#keepAlive(), this.#keepAliveMs)
      this.#timer.unref()
    }
  }

  #remove (sub: Subscription): void {
    if (!this.#all.delete(sub)) return
    for (const kind of sub.lists) this.#lists[kind].delete(sub)
    for (const uri of sub.uris) {
      const subs = this.#uris.get(uri)
      if (subs !== undefined && subs.delete(sub) && subs.size === 0) this.#uris.delete(uri)
    }
    for (const taskId of sub.taskIds) {
      const subs = this.#tasks.get(taskId)
      if (subs !== undefined && subs.delete(sub) && subs.size === 0) this.#tasks.delete(taskId)
    }
    if (this.#all.size === 0) this.#stopTimer()
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

/**
 * Answers a `subscriptions/listen` request: checks its filter, then opens the
 * stream. `ownerOf` names the request's caller the way the tasks service names
 * a task's owner, so task notifications find their owner's streams.
 */
export function createListenResponder (registry: SubscriptionRegistry, capabilities: ModernServerCapabilities,
  ownerOf: (request: FastifyRequest) => string) {
  return function respondListen (id: RequestId, params: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const filter = parseFilter(params.notifications)
    if (typeof filter === 'string') return sendError(reply, 400, id, ErrorCode.InvalidParams, `Invalid params: ${filter}`)
    const honoured = honouredFilter(filter, capabilities)
    // Only task notifications need to know who listens; the owner function may be the user's.
    let caller = ''
    if (honoured.taskIds !== undefined) {
      try {
        caller = ownerOf(request)
      } catch (err) {
        request.log.error({ err }, 'MCP listen stream: the task owner could not be computed')
        return sendError(reply, 200, id, ErrorCode.InternalError, 'Internal error')
      }
    }
    return registry.open(id, honoured, reply, caller)
  }
}
