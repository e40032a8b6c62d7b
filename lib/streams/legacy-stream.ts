/**
 * The legacy era's standalone stream (2025-11-25 Streamable HTTP: `GET` on
 * the endpoint with `Accept: text/event-stream`): how a client that opened
 * with `initialize` hears `notifications/<kind>/list_changed` for every kind
 * the legacy capabilities advertise with `listChanged: true`, and
 * `notifications/resources/updated` for what its session subscribed to.
 *
 * The stream lives in the subscription registry beside the listen streams
 * (same bounds in all and per caller, keep-alive, the stuck-reader bound of
 * lib/streams/sse-writer.ts) and hears what the event bus delivers, from
 * every instance. Nothing but notifications travels on it: no request, no
 * response.
 *
 * Missed changes: a client resumes a dropped stream (its connection cut, its
 * instance restarted or closed, maybe on another instance) with the
 * `Last-Event-ID` of the last event it saw. There is no replay: such a
 * stream starts with one `list_changed` per kind it hears (and one
 * `resources/updated` per subscribed URI), so the client re-reads. A
 * 2025-11-25 client gets the priming event (an id, empty data) first, so it
 * always has an id to resume with; older clients get ids on notifications
 * only (an empty event would be an error to them).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { ListName } from '../parts/event-bus.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { isLegacyVersion, isModernVersion } from '../protocol/versions.js'
import { sendError } from '../response/reply.js'
import type { LegacyServerCapabilities } from '../server-module/capabilities.js'
import { type SubscriptionRegistry, TOO_MANY_STREAMS } from './subscriptions.js'

/** The first version whose clients expect the priming event (an id with empty data) on a stream. */
const PRIMING_SINCE = '2025-11-25'

/** The list kinds a legacy stream hears: those advertised with `listChanged: true`. */
export function legacyStreamLists (capabilities: LegacyServerCapabilities): ListName[] {
  return (['tools', 'prompts', 'resources'] as const).filter((kind) => capabilities[kind]?.listChanged === true)
}

/** A client that does not list `text/event-stream` in `Accept` asked for something a GET cannot give. */
function acceptsEventStream (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  return typeof accept === 'string' && accept.includes('text/event-stream')
}

/** Who the stream is for: its bound's key, and the session it belongs to (with sessions) and that session's subscriptions. */
export interface LegacyStreamOwner {
  readonly limitKey: string
  readonly session?: string
  readonly uris?: readonly string[]
}

/** Answers a GET: refuses what cannot be a legacy stream (coded JSON-RPC errors), else opens one. */
export function createLegacyStreamResponder (registry: SubscriptionRegistry, capabilities: LegacyServerCapabilities) {
  const lists = legacyStreamLists(capabilities)
  return function openLegacyStream (request: FastifyRequest, reply: FastifyReply, owner: LegacyStreamOwner): FastifyReply {
    if (!acceptsEventStream(request)) {
      return sendError(reply, 406, undefined, ErrorCode.InvalidRequest, 'Not Acceptable: GET opens a text/event-stream; list it in Accept')
    }
    const version = request.headers['mcp-protocol-version']
    if (version !== undefined && !isLegacyVersion(version)) {
      if (isModernVersion(version)) {
        // 2026-07-28 has no standalone stream: its clients listen with subscriptions/listen.
        reply.header('allow', 'POST')
        return sendError(reply, 405, undefined, ErrorCode.InvalidRequest, 'Method Not Allowed: 2026-07-28 clients listen with subscriptions/listen (POST)')
      }
      return sendError(reply, 400, undefined, ErrorCode.InvalidRequest, 'Bad Request: unsupported MCP-Protocol-Version')
    }
    const refused = registry.refusal(owner.limitKey)
    if (refused !== undefined) return sendError(reply, refused.status, undefined, TOO_MANY_STREAMS, refused.message, refused.data)
    return registry.openLegacy(reply, {
      lists,
      limitKey: owner.limitKey,
      priming: typeof version === 'string' && version >= PRIMING_SINCE,
      resumed: request.headers['last-event-id'] !== undefined,
      session: owner.session,
      uris: owner.uris
    })
  }
}
