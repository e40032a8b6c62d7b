/**
 * The endpoint as an OAuth resource server, wired into Fastify: the
 * route-level `onRequest` hook that authenticates every request to the
 * endpoint (all HTTP methods, both eras) before its body is read, the scope
 * check once the JSON-RPC message is known (per method, and per tool, prompt
 * or resource: the composed module's scope table, lib/definitions/compose.ts),
 * what lists show a caller, and the RFC 9728 metadata route.
 *
 * Refusals are JSON-RPC error bodies (`-32600`; `-32603` for a 503) behind
 * the status and `WWW-Authenticate` header clients act on. A 401 is decided
 * before the body is parsed, so it carries no id; a 403 echoes the id.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { ResolvedAuthorization } from '../auth/authorization-options.js'
import { setVerifiedCaller, verifiedCallerOf } from '../auth/request-token.js'
import { FILTERED_LISTS, filterList } from '../auth/list-filter.js'
import { type AuthRejection, type AuthVerdict, isRejection, ResourceServer, RETRY_AFTER_SEC, type TokenVerifier } from '../auth/resource-server.js'
import { scopesRequired } from '../server-module/scopes.js'
import type { JsonObject } from '../server-module/contract.js'
import type { ScopeTable } from '../definitions/required-scopes.js'
import type { Catalog } from '../definitions/catalog.js'
import type { SkillEntry } from '../definitions/skill-entry.js'
import { nestedGuards } from '../definitions/skill-serving.js'
import { carriesManifests, manifestsFor } from '../auth/skill-manifest-view.js'
import { FST_MCP_INVALID_OPTION } from '../errors.js'
import type { RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { moduleMethod } from '../protocol/methods.js'
import { sendError } from '../response/reply.js'
import { parseFilter } from '../streams/subscriptions.js'
import { MAX_TIMER_MS } from '../common/timers.js'
import { INTERNAL_ERROR_OUTCOME, type ListFilter, type Outcome } from '../handler/invoke.js'

export interface EndpointAuthorization {
  readonly resourceServer: ResourceServer
  /** `onRequest` hook of the endpoint's routes (callback style: a known token costs no promise). */
  authenticate (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void
  /** A 403 sent when the caller lacks a scope `method` with `params` needs; undefined to go on. */
  checkScopes (request: FastifyRequest, reply: FastifyReply, id: RequestId, method: string, params: JsonObject): FastifyReply | undefined
  /**
   * The scope check of a target a hook chose (a preHandler's `call.uri`):
   * an error outcome when the caller may not reach it, without the 403 and
   * its challenge (the client did not ask for that target); undefined to go on.
   */
  checkTarget (request: FastifyRequest, method: string, params: JsonObject): Outcome | undefined
  /**
   * Narrows a list outcome to what the caller may use: with `filterLists`, the
   * items whose scopes it holds; with skills, manifests without the nested
   * files it may not read (lib/auth/skill-manifest-view.ts). Undefined when neither applies.
   */
  readonly filterListOutcome: ListFilter | undefined
  /** Ends a long-lived response (a `subscriptions/listen` stream) when the token that opened it expires. */
  endAtExpiry (request: FastifyRequest, reply: FastifyReply): void
  /** Serves the metadata document on `fastify` (at the origin's well-known paths). */
  serveMetadata (fastify: FastifyInstance, loggerFactory: FastifyInstance['childLoggerFactory'] | undefined): void
}

/** A scope declaration threw. */
const FAULT: unique symbol = Symbol('scope declaration fault')

export function sendRejection (reply: FastifyReply, rejection: AuthRejection, id: RequestId | undefined): FastifyReply {
  if (rejection.challenge !== undefined) reply.header('www-authenticate', rejection.challenge)
  if (rejection.status === 503) reply.header('retry-after', String(RETRY_AFTER_SEC))
  return sendError(reply, rejection.status, id, rejection.status === 503 ? ErrorCode.InternalError : ErrorCode.InvalidRequest, rejection.message)
}

/** The built-in JWT verifier, with `jose` loaded only now (an optional peer dependency). */
async function jwtVerifier (settings: ResolvedAuthorization): Promise<TokenVerifier> {
  if (settings.verifier.kind === 'custom') return settings.verifier.verify
  let jose: typeof import('jose')
  try {
    jose = await import('jose')
  } catch {
    throw new FST_MCP_INVALID_OPTION('authorization', 'built-in JWT verification needs the optional peer dependency "jose" (npm install jose); or give verifyAccessToken')
  }
  const { createJwtVerifier } = await import('../auth/jwt-verifier.js')
  const verify = createJwtVerifier(jose, settings.verifier.settings)
  return (token) => verify(token)
}

/** `scopes`: what each handler's calls need (the composition's, read once at registration); `skills`: its skills' catalogue, if any. */
export async function createEndpointAuthorization (settings: ResolvedAuthorization, scopes: Readonly<ScopeTable>, skills?: Catalog<SkillEntry>): Promise<EndpointAuthorization> {
  const resourceServer = new ResourceServer(settings, await jwtVerifier(settings))

  function admit (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction, verdict: AuthVerdict): void {
    if (isRejection(verdict)) {
      sendRejection(reply, verdict, undefined)
      return
    }
    setVerifiedCaller(request, verdict)
    done()
  }

  function authenticate (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const verdict = resourceServer.authenticate(request)
    if (!(verdict instanceof Promise)) {
      admit(request, reply, done, verdict)
      return
    }
    verdict.then((v) => admit(request, reply, done, v), (err: unknown) => done(err as Error))
  }

  /**
   * A listen that names resources needs what subscribing to each needs (a
   * resource's read scopes, lib/definitions/compose.ts): its updates tell
   * that the resource exists and when it changes. A filter the listen will
   * refuse (parseFilter: malformed, or past its bounds) needs nothing here.
   */
  function listenScopes (params: JsonObject): readonly string[] | undefined {
    if (scopes.subscribeResource === undefined) return undefined
    const filter = parseFilter(params.notifications)
    if (typeof filter === 'string' || filter.resourceSubscriptions === undefined) return undefined
    const needed = new Set<string>()
    for (const uri of filter.resourceSubscriptions) {
      for (const scope of scopesRequired(scopes.subscribeResource, { uri })) needed.add(scope)
    }
    return [...needed]
  }

  /** Why the caller may not call `method` with `params`: a missing scope, FAULT when a scope declaration threw (logged); undefined when it may. */
  function scopeDenial (request: FastifyRequest, method: string, params: JsonObject): AuthRejection | typeof FAULT | undefined {
    const caller = verifiedCallerOf(request)
    if (caller === undefined) return undefined
    const entry = moduleMethod(method)
    let handlerScopes: readonly string[] | undefined
    if (entry !== undefined || method === 'subscriptions/listen') {
      try {
        handlerScopes = entry !== undefined ? scopesRequired(scopes[entry.handler], params) : listenScopes(params)
      } catch (err) {
        // A scope declaration that throws is the server's bug: refuse, without details.
        request.log.error({ err, method }, 'MCP required-scopes function failed')
        return FAULT
      }
    }
    const needed = resourceServer.scopesNeeded(method, handlerScopes)
    if (needed.length === 0) return undefined
    return resourceServer.checkScopes(caller, needed)
  }

  function checkScopes (request: FastifyRequest, reply: FastifyReply, id: RequestId, method: string, params: JsonObject): FastifyReply | undefined {
    const denied = scopeDenial(request, method, params)
    if (denied === undefined) return undefined
    return denied === FAULT ? sendError(reply, 200, id, ErrorCode.InternalError, 'Internal error') : sendRejection(reply, denied, id)
  }

  function checkTarget (request: FastifyRequest, method: string, params: JsonObject): Outcome | undefined {
    const denied = scopeDenial(request, method, params)
    if (denied === undefined) return undefined
    return denied === FAULT ? INTERNAL_ERROR_OUTCOME : { ok: false, code: ErrorCode.InvalidRequest, message: denied.message }
  }

  const hideItems: ListFilter | undefined = settings.filterLists
    ? (method, outcome, request, modern) =>
        outcome.ok && FILTERED_LISTS.has(method)
          ? { ok: true, result: filterList(scopes, method, outcome.result, verifiedCallerOf(request), modern) }
          : outcome
    : undefined
  // Whatever `filterLists` says: a manifest lists a nested skill's files only to callers who may read them.
  const viewManifests: ListFilter | undefined = skills === undefined
    ? undefined
    : (method, outcome, request, modern) => {
        if (!outcome.ok || !carriesManifests(method)) return outcome
        const result = manifestsFor(nestedGuards(skills), method, outcome.result, verifiedCallerOf(request), modern)
        return result === outcome.result ? outcome : { ok: true, result }
      }
  const filterListOutcome: ListFilter | undefined = hideItems === undefined || viewManifests === undefined
    ? hideItems ?? viewManifests
    : (method, outcome, request, modern) => viewManifests(method, hideItems(method, outcome, request, modern), request, modern)

  function endAtExpiry (request: FastifyRequest, reply: FastifyReply): void {
    const expiresAtMs = verifiedCallerOf(request)?.expiresAtMs
    const raw = reply.raw
    if (expiresAtMs === undefined || raw.writableEnded) return
    const delay = Math.max(0, expiresAtMs - Date.now())
    if (delay > MAX_TIMER_MS) return
    // The client reconnects with a fresh token; an expired one must not keep receiving notifications.
    const timer = setTimeout(() => raw.end(), delay)
    timer.unref()
    raw.once('close', () => clearTimeout(timer))
  }

  function serveMetadata (fastify: FastifyInstance, loggerFactory: FastifyInstance['childLoggerFactory'] | undefined): void {
    if (!settings.serveMetadata) return
    if (fastify.prefix !== '') {
      throw new FST_MCP_INVALID_OPTION('authorization.serveMetadata',
        `the metadata document belongs at ${resourceServer.metadataPaths.join(', ')} on the origin, but this context adds the prefix "${fastify.prefix}": register the plugin at the root, or set serveMetadata: false and serve fastify.mcp.authorization.metadata yourself`)
    }
    for (const url of resourceServer.metadataPaths) {
      fastify.route({
        method: 'GET',
        url,
        ...(loggerFactory === undefined ? {} : { childLoggerFactory: loggerFactory }),
        handler (_request, reply) {
          // A public document: any origin may read it (browser-based MCP clients fetch it cross-origin).
          return reply.header('access-control-allow-origin', '*').type('application/json; charset=utf-8').send(resourceServer.metadataJson)
        }
      })
    }
  }

  return { resourceServer, authenticate, checkScopes, checkTarget, filterListOutcome, endAtExpiry, serveMetadata }
}
