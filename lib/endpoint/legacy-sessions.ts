/**
 * Legacy `Mcp-Session-Id` sessions (the `sessions` option; docs/streaming-and-logging.md). Issued at `initialize` (a legacy one), kept in the session
 * store (lib/parts/session-store.ts; any instance serves any session),
 * bound to the caller that opened it. A request that names a session that
 * does not exist, expired, or belongs to another caller is answered 404
 * (`-32001 Session not found`), which tells the client to initialize again;
 * nothing tells one caller whether another's id exists. A request without
 * the header is served as without sessions.
 *
 * What a session gives: `resources/subscribe` and `unsubscribe` (served by
 * the endpoint when the module has no handler of its own), heard as
 * `notifications/resources/updated` on the session's GET streams on
 * whichever instance holds them (the bus carries each change of a session's
 * subscriptions), and a `logging/setLevel` of its own. `DELETE` with the
 * header ends it, and its streams on every instance.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { RequestSlot } from '../common/request-slot.js'
import { callerOf } from '../handler/caller.js'
import { type EventBus, isSessionId, MAX_SESSION_URIS, type McpEvent } from '../parts/event-bus.js'
import type { MaybePromise } from '../common/maybe-promise.js'
import type { SessionLimits, SessionRecord, SessionStore } from '../parts/session-store.js'
import { isJsonObject, isRequestId, type RequestId } from '../protocol/jsonrpc.js'
import type { LogLevel } from '../protocol/log-level.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { namesProtocolVersion } from '../protocol/meta.js'
import { sendError } from '../response/reply.js'
import type { LegacyStreamOwner } from '../streams/legacy-stream.js'
import type { SubscriptionRegistry } from '../streams/subscriptions.js'

/** The POST handler it wraps (lib/endpoint/dispatcher.ts's, spelled here: that file reaches this one through the era handlers). */
type PostHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined

/** The code the official SDKs answer an unknown session with. */
export const SESSION_NOT_FOUND = -32001
const MAX_URI_CHARS = 4096
/**
 * What one session's subscribed URIs may add up to, in characters. The
 * count bound alone let a session hold 1000 URIs of 4096 characters (4 MB),
 * and `maxSessions` (10,000) such sessions 40 GB; this keeps them to about
 * 320 MB at the defaults.
 */
export const MAX_SESSION_URI_CHARS = 32 * 1024

interface BoundSession {
  readonly id: string
  readonly record: SessionRecord
}

/** The request's session: a private per-request slot (lib/common/request-slot.ts), not a WeakMap: no ephemeron per request for the GC to trace. */
const sessionSlot = new RequestSlot<BoundSession>()

function bind (request: FastifyRequest, session: BoundSession): void {
  sessionSlot.set(request, session)
}

/** The session a legacy request named (checked), if any. */
export function sessionOf (request: FastifyRequest): BoundSession | undefined {
  return sessionSlot.get(request)
}

function requestIdOf (body: unknown): RequestId | undefined {
  return isJsonObject(body) && isRequestId(body.id) ? body.id : undefined
}

function isLegacyInitialize (body: unknown): boolean {
  if (!isJsonObject(body) || body.method !== 'initialize' || !isRequestId(body.id) || !isJsonObject(body.params)) return false
  return typeof body.params.protocolVersion === 'string' && !namesProtocolVersion(body.params._meta)
}

function charsOf (uris: ReadonlySet<string>): number {
  let chars = 0
  for (const uri of uris) chars += uri.length
  return chars
}

function isModern (body: unknown): boolean {
  if (!isJsonObject(body) || !isJsonObject(body.params)) return false
  return namesProtocolVersion(body.params._meta)
}

export class LegacySessions {
  readonly #store: SessionStore
  readonly #limits: SessionLimits
  readonly #bus: EventBus
  readonly #streams: SubscriptionRegistry

  constructor (store: SessionStore, limits: SessionLimits, bus: EventBus, streams: SubscriptionRegistry) {
    this.#store = store
    this.#limits = limits
    this.#bus = bus
    this.#streams = streams
  }

  /** POST: issues a session at a legacy initialize, checks the one a legacy request names, then lets `next` answer. */
  wrap (next: PostHandler): PostHandler {
    return (request, reply) => {
      const body = request.body
      if (isLegacyInitialize(body)) return this.#issue(request, reply, next)
      const header = request.headers['mcp-session-id']
      if (header === undefined || isModern(body)) return next(request, reply)
      const checked = this.#check(request, reply, header)
      // A session the store answered at once is served without a promise in between.
      if (!(checked instanceof Promise)) return checked === undefined ? undefined : next(request, reply)
      return checked.then((session) => session === undefined ? reply : (next(request, reply) ?? reply))
    }
  }

  /** GET: who the stream is for; a named session must be this caller's (else 404 and undefined). */
  async streamOwner (request: FastifyRequest, reply: FastifyReply): Promise<LegacyStreamOwner | undefined> {
    const limitKey = callerOf(request)
    const header = request.headers['mcp-session-id']
    if (header === undefined) return { limitKey }
    const session = await this.#check(request, reply, header)
    return session === undefined ? undefined : { limitKey, session: session.id, uris: session.record.uris }
  }

  /** DELETE: ends the caller's session, and its streams on every instance. */
  async end (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const header = request.headers['mcp-session-id']
    if (header === undefined) return sendError(reply, 400, undefined, ErrorCode.InvalidRequest, 'Bad Request: DELETE ends the session named by Mcp-Session-Id')
    let ended = false
    try {
      ended = isSessionId(header) && await this.#store.delete(header, callerOf(request))
    } catch (err) {
      request.log.error({ err }, 'MCP session store unavailable')
      return sendError(reply, 503, undefined, ErrorCode.InternalError, 'Service unavailable: the session could not be ended; try again')
    }
    if (!ended) return sendError(reply, 404, undefined, SESSION_NOT_FOUND, 'Session not found')
    this.#streams.endSession(header as string)
    this.#publish(request, { type: 'sessionEnded', session: header as string })
    return reply.code(204).send()
  }

  /** `resources/subscribe` and `unsubscribe` of the request's session. */
  async subscribe (request: FastifyRequest, uri: unknown, on: boolean): Promise<Record<string, never>> {
    const session = sessionOf(request)
    if (session === undefined) {
      throw new McpError(ErrorCode.InvalidRequest, 'resources/subscribe needs a session: send the Mcp-Session-Id header issued at initialize')
    }
    if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_URI_CHARS) throw new McpError(ErrorCode.InvalidParams, `Invalid params: "uri" must be a non-empty string of at most ${MAX_URI_CHARS} characters`)
    let tooMany = false
    const record = await this.#store.update(session.id, callerOf(request), (current) => {
      const uris = new Set(current.uris)
      if (on) uris.add(uri)
      else uris.delete(uri)
      if (on && (uris.size > MAX_SESSION_URIS || charsOf(uris) > MAX_SESSION_URI_CHARS)) {
        tooMany = true
        return current
      }
      return { ...current, uris: [...uris] }
    }, this.#limits)
    if (tooMany) throw new McpError(ErrorCode.InvalidParams, `Invalid params: a session may subscribe to at most ${MAX_SESSION_URIS} resources, their URIs ${MAX_SESSION_URI_CHARS} characters in all`)
    if (record === undefined) throw new McpError(SESSION_NOT_FOUND, 'Session not found')
    this.#streams.setSessionUris(session.id, record.uris)
    this.#publish(request, { type: 'sessionChanged', session: session.id, uris: [...record.uris] })
    return {}
  }

  /** `logging/setLevel` with a session: the level is the session's. */
  async setLevel (request: FastifyRequest, level: LogLevel): Promise<boolean> {
    const session = sessionOf(request)
    if (session === undefined) return false
    const record = await this.#store.update(session.id, callerOf(request), (current) => ({ ...current, level }), this.#limits)
    // Gone since the request was let in (expired, ended, evicted): nothing kept it, so the client must not be told it was.
    if (record === undefined) throw new McpError(SESSION_NOT_FOUND, 'Session not found')
    bind(request, { id: session.id, record })
    return true
  }

  /** A change of a session heard on the bus (this instance's own included). */
  heard (event: Extract<McpEvent, { type: 'sessionChanged' | 'sessionEnded' }>): void {
    this.#store.forget?.(event.session)
    if (event.type === 'sessionEnded') this.#streams.endSession(event.session)
    else this.#streams.setSessionUris(event.session, event.uris)
  }

  async #issue (request: FastifyRequest, reply: FastifyReply, next: PostHandler): Promise<FastifyReply> {
    const id = randomBytes(16).toString('base64url')
    try {
      const evicted = await this.#store.create(id, callerOf(request), this.#limits)
      reply.header('mcp-session-id', id)
      // The sessions that made room end, with their streams on every instance.
      if (Array.isArray(evicted)) {
        for (const gone of evicted) {
          this.#streams.endSession(gone)
          this.#publish(request, { type: 'sessionEnded', session: gone })
        }
      }
    } catch (err) {
      // Served without a session: the client works, only without subscriptions.
      request.log.error({ err }, 'MCP session store unavailable: initialize answered without a session')
    }
    return await (next(request, reply) ?? reply)
  }

  /** The session a request names, bound to it; or undefined, the request answered 404 (or 503). At once when the store answers at once. */
  #check (request: FastifyRequest, reply: FastifyReply, header: string | string[]): MaybePromise<BoundSession | undefined> {
    if (typeof header !== 'string' || !isSessionId(header)) return this.#notFound(request, reply)
    let touched: MaybePromise<SessionRecord | undefined>
    try {
      touched = this.#store.touch(header, callerOf(request), this.#limits)
    } catch (err) {
      return this.#unavailable(request, reply, err)
    }
    if (!(touched instanceof Promise)) return this.#bind(request, reply, header, touched)
    return touched.then((record) => this.#bind(request, reply, header, record), (err: unknown) => this.#unavailable(request, reply, err))
  }

  #bind (request: FastifyRequest, reply: FastifyReply, id: string, record: SessionRecord | undefined): BoundSession | undefined {
    if (record === undefined) return this.#notFound(request, reply)
    const session = { id, record }
    bind(request, session)
    return session
  }

  #notFound (request: FastifyRequest, reply: FastifyReply): undefined {
    sendError(reply, 404, requestIdOf(request.body), SESSION_NOT_FOUND, 'Session not found')
    return undefined
  }

  #unavailable (request: FastifyRequest, reply: FastifyReply, err: unknown): undefined {
    request.log.error({ err }, 'MCP session store unavailable')
    sendError(reply, 503, requestIdOf(request.body), ErrorCode.InternalError, 'Service unavailable: the session could not be read; try again')
    return undefined
  }

  #publish (request: FastifyRequest, event: McpEvent): void {
    this.#bus.publish(event).catch((err: unknown) => request.log.error({ err, event: event.type }, 'MCP session change not delivered to every instance (event bus)'))
  }
}
