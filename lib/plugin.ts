/**
 * The Fastify plugin: checks the options at registration, builds everything
 * that does not change per request, and mounts the MCP endpoint (POST for
 * messages; GET and DELETE answer 405, as a stateless server has no
 * standalone stream and no sessions). Open `subscriptions/listen` streams get
 * their final response and end before the server stops (`preClose`).
 *
 * What instances behind a load balancer must share goes through pluggable
 * parts (lib/parts/), in memory by default: `notify*()` publish on the event
 * bus and this endpoint's listen streams hear what the bus delivers, from
 * any instance; legacy answers that land here for another instance's
 * request go through the answer router. Shared parts are awaited at
 * registration (bounded) and closed with the app.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'
import { installJsonParser } from './endpoint/body-parser.js'
import type { LegacyServerCapabilities, ModernServerCapabilities } from './server-module/capabilities.js'
import { createEndpointState } from './endpoint/state.js'
import { sendAccepted, sendError } from './response/reply.js'
import { endpointErrorHandler } from './endpoint/error-handler.js'
import { FST_MCP_ALREADY_REGISTERED, FST_MCP_INVALID_OPTION, FST_MCP_SCALE_UNAVAILABLE } from './errors.js'
import { checkServerModule } from './server-module/module-check.js'
import { classifyMessage, type JsonRpcMessage, type RequestId } from './protocol/jsonrpc.js'
import { createLegacyHandler, type LegacyLogging } from './endpoint/legacy-era.js'
import { ErrorCode } from './protocol/mcp-error.js'
import { createModernHandler, isModernRequest } from './endpoint/modern-era.js'
import { META_PROTOCOL_VERSION } from './protocol/meta.js'
import { type DeploymentEra, type McpCapabilitiesOptions, resolveOptions, type ServerInfo } from './options.js'
import { PendingRequests } from './input/pending-requests.js'
import { checkRequestSource } from './endpoint/security.js'
import { SubscriptionRegistry } from './streams/subscriptions.js'
import { TaskService } from './tasks/service.js'
import { keepTickShapesAlive } from './response/tick-shapes.js'
import { isModernVersion } from './protocol/versions.js'
import { createEndpointAuthorization } from './endpoint/authorization.js'
import { redactingLoggerFactory } from './endpoint/log-redaction.js'
import type { ProtectedResourceMetadata } from './auth/protected-resource-metadata.js'
import type { LogLevel } from './protocol/log-level.js'
import { type AnswerRouter, MemoryAnswerRouter } from './parts/answer-router.js'
import { type EventBus, type McpEvent, MemoryEventBus } from './parts/event-bus.js'
import { claimParts } from './parts/claims.js'
import type { JsonObject } from './protocol/jsonrpc.js'
import { callerOf } from './auth/caller.js'
import { cancelNotified } from './handler/in-flight.js'

/** Bound on waiting for the shared parts at registration, whatever bounds of their own they keep. */
const SCALE_READY_LIMIT_MS = 30_000

export type { McpCapabilitiesOptions } from './options.js'

// As early as possible: a full GC before the first request could otherwise slow every request (see response/tick-shapes.ts).
keepTickShapesAlive()

/** What the plugin exposes on the Fastify instance as `fastify.mcp`. */
export interface McpDecorator {
  /** The frozen capability objects the endpoint advertises, per era. */
  readonly capabilities: {
    readonly legacy: LegacyServerCapabilities
    readonly modern: ModernServerCapabilities
  }
  readonly serverInfo: Readonly<ServerInfo>
  readonly era: DeploymentEra
  readonly path: string
  /**
   * Sends `notifications/tools/list_changed` on every open `subscriptions/listen`
   * stream that asked for it, on every instance sharing the event bus; returns
   * how many of this instance's streams it was written to at once (0 when
   * nobody listens here). A failure to reach the other instances is logged.
   */
  notifyToolsChanged (): number
  /** Same for `notifications/prompts/list_changed`. */
  notifyPromptsChanged (): number
  /** Same for `notifications/resources/list_changed`. */
  notifyResourcesChanged (): number
  /** Sends `notifications/resources/updated` for `uri` on every stream subscribed to exactly that URI. */
  notifyResourceUpdated (uri: string): number
  /** How many `subscriptions/listen` streams are open. */
  readonly listenStreams: number
  /** With the `authorization` option: the metadata document, its URL, and a way to forget remembered tokens. */
  readonly authorization: {
    readonly resource: string
    readonly metadata: Readonly<ProtectedResourceMetadata>
    readonly metadataUrl: string
    clearTokenCache (): void
  } | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    mcp: McpDecorator
  }
}

const plugin: FastifyPluginAsync<McpCapabilitiesOptions> = async (fastify, opts) => {
  const options = resolveOptions(opts)
  if (fastify.hasDecorator('mcp')) throw new FST_MCP_ALREADY_REGISTERED()

  for (const warning of checkServerModule(options.server)) fastify.log.warn(warning)
  // Given parts belong to this endpoint from here on (checked before anything is built).
  claimParts({ eventBus: options.eventBus, answerRouter: options.answerRouter })
  // The resource server (when `authorization` is set), with jose loaded if its JWT verification is used.
  const auth = options.authorization === undefined ? undefined : await createEndpointAuthorization(options.authorization, options.server)
  const state = createEndpointState(options, auth?.filterListOutcome)
  // The shared parts: given (e.g. on Redis), or in this process's memory.
  const bus: EventBus = options.eventBus ?? new MemoryEventBus()
  const router: AnswerRouter = options.answerRouter ?? new MemoryAnswerRouter()
  // Legacy server-to-client requests awaiting the client's POSTed response; the router brings answers that land elsewhere.
  const pending = new PendingRequests(options.clientRequestTimeoutMs, () => router.requestId())
  router.attach((answer, caller) => pending.settle(answer, caller))
  // One legacy log level for the deployment: set here at once, and on the others through the bus.
  let legacyLevel: LogLevel | undefined
  const logging: LegacyLogging = {
    get level () { return legacyLevel },
    set (level) {
      legacyLevel = level
      return bus.publish({ type: 'logLevel', level })
    }
  }
  const handleLegacy = createLegacyHandler(state, pending, logging)
  const subscriptions = new SubscriptionRegistry({
    keepAliveMs: options.keepAliveMs,
    serverInfo: options.serverInfo,
    limits: { maxStreams: options.maxListenStreams, maxStreamsPerCaller: options.maxListenStreamsPerCaller, maxBufferedBytes: options.maxStreamBufferBytes }
  })
  // This instance's streams hear every event the bus delivers; filtering and subscriptionId stay here.
  const stopListening = bus.subscribe((event) => {
    switch (event.type) {
      case 'listChanged':
        subscriptions.notifyListChanged(event.list)
        break
      case 'resourceUpdated':
        subscriptions.notifyResourceUpdated(event.uri)
        break
      case 'taskStatus':
        subscriptions.notifyTaskStatus(event.owner, event.task)
        break
      case 'logLevel':
        legacyLevel = event.level
        break
    }
  })
  // Events may have been lost while the bus was cut off: every stream re-reads what it follows.
  const stopGapListening = bus.onReconnect?.(() => {
    const sent = subscriptions.notifyAllMayHaveChanged()
    fastify.log.info({ notifications: sent }, 'MCP event bus reconnected: listen streams told that lists and resources may have changed')
  }) ?? (() => {})
  let partsClosed: Promise<void> | undefined
  const closeParts = (): Promise<void> => {
    partsClosed ??= (async () => {
      stopListening()
      stopGapListening()
      await Promise.all([bus.close(), router.close()])
    })()
    return partsClosed
  }
  await partsReady([bus, router], closeParts)

  /** Publishes `event`; returns how many of this instance's streams it reached at once. */
  function publish (event: McpEvent): number {
    const before = subscriptions.delivered
    bus.publish(event).catch((err: unknown) => {
      fastify.log.error({ err, event: event.type }, 'MCP notification not delivered to every instance (event bus)')
    })
    return subscriptions.delivered - before
  }
  // The tasks extension: records in the configured store (default: per endpoint, in memory), work in this process.
  let tasks: TaskService | undefined
  if (options.tasks) {
    try {
      tasks = new TaskService({ limits: options.taskLimits, owner: options.taskOwner, store: options.taskStore, bus, log: fastify.log, maxInputBytes: options.taskMaxArgumentBytes })
    } catch (err) {
      await closeParts()
      throw new FST_MCP_INVALID_OPTION('taskOptions.store', `the store could not be made: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  const handleModern = createModernHandler(state, subscriptions, tasks)
  const policy = { allowedOrigins: options.allowedOrigins, allowedHosts: options.allowedHosts }

  // fastify-plugin skips encapsulation, so a `prefix` given to register is applied here, to the endpoint's own context.
  const prefix = (opts as { prefix?: unknown }).prefix
  const mountPath = (typeof prefix === 'string' ? prefix.replace(/\/+$/, '') : '') + options.path

  fastify.decorate('mcp', Object.freeze({
    capabilities: state.capabilities,
    serverInfo: options.serverInfo,
    era: options.era,
    path: mountPath,
    notifyToolsChanged: () => publish(TOOLS_CHANGED),
    notifyPromptsChanged: () => publish(PROMPTS_CHANGED),
    notifyResourcesChanged: () => publish(RESOURCES_CHANGED),
    notifyResourceUpdated: (uri: string) => {
      if (typeof uri !== 'string') throw new TypeError('notifyResourceUpdated(uri): uri must be a string')
      return publish({ type: 'resourceUpdated', uri })
    },
    get listenStreams () {
      return subscriptions.size
    },
    authorization: auth === undefined
      ? undefined
      : Object.freeze({
        resource: auth.resourceServer.settings.resource,
        metadata: auth.resourceServer.metadata,
        metadataUrl: auth.resourceServer.metadataUrl,
        clearTokenCache: () => auth.resourceServer.clearCache()
      })
  }))
  // Each close is idempotent. preClose: Node's server.close() would wait for the open streams;
  // onClose: an app closed before it ever listened.
  const closeAll = async (): Promise<void> => {
    subscriptions.close()
    // Questions waiting for a legacy client fail, then every pending handler is stopped (answered at once).
    pending.close()
    await state.inFlight.close()
    await tasks?.close()
    await closeParts()
  }
  fastify.addHook('preClose', closeAll)
  fastify.addHook('onClose', closeAll)

  // A callback hook: no promise per request on the hot path.
  function guard (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const verdict = checkRequestSource(request, policy)
    if (verdict === 'ok') {
      done()
      return
    }
    // Answering from the hook without calling done() ends the request here.
    sendError(reply, 403, undefined, ErrorCode.InvalidRequest,
      verdict === 'origin' ? 'Forbidden: Origin not allowed' : 'Forbidden: Host not allowed')
  }

  // Not async, and returns only the promise of a handler still running: a request answered
  // synchronously (discover, initialize, every rejection) costs no promise.
  function handlePost (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined {
    const message = classifyMessage(request.body)
    const id = message.kind === 'request' ? message.id : undefined
    try {
      const answer = route(message, request, reply)
      return answer instanceof Promise ? answer.catch((err: unknown) => fault(err, id, request, reply)) : undefined
    } catch (err) {
      fault(err, id, request, reply)
      return undefined
    }
  }

  /** Last line of defence: a fault of the endpoint's own is logged and answered -32603 with the id, never a bare 500. */
  function fault (err: unknown, id: RequestId | undefined, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    request.log.error({ err }, 'MCP endpoint failed while answering')
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy()
      return reply
    }
    return sendError(reply, 200, id, ErrorCode.InternalError, 'Internal error')
  }

  function route (message: JsonRpcMessage, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    let answer: FastifyReply | Promise<FastifyReply>
    let denied: FastifyReply | undefined
    if (message.kind === 'invalid') {
      answer = sendError(reply, 400, message.id, message.code, message.message)
    } else if (message.kind === 'response') {
      // A client's answer to a legacy server-to-client request: waited for here, or routed to the instance that waits.
      answer = pending.settle(request.body, callerOf(request)) ? sendAccepted(reply) : routeAnswer(request, reply)
    } else if (message.kind === 'notification') {
      if (message.method === 'notifications/cancelled') cancelNotified(state.inFlight, callerOf(request), message.params, request.log)
      answer = sendAccepted(reply)
    } else if (auth !== undefined && (denied = auth.checkScopes(request, reply, message.id, message.method, message.params)) !== undefined) {
      answer = denied
    } else if (isModernRequest(message)) {
      answer = handleModern(message, request, reply)
      if (auth !== undefined && message.method === 'subscriptions/listen') auth.endAtExpiry(request, reply)
    } else if (state.serveModern && isModernVersion(request.headers['mcp-protocol-version'])) {
      // The header says modern but the body has no _meta version: a modern request missing its metadata.
      answer = sendError(reply, 400, message.id, ErrorCode.InvalidParams, `Invalid params: _meta must carry "${META_PROTOCOL_VERSION}"`)
    } else {
      answer = handleLegacy(message, request, reply)
    }
    return answer
  }

  /** An answer for no request of this instance: to the router (an unknown id is acknowledged all the same). */
  function routeAnswer (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    return router.route(request.body as JsonObject, callerOf(request)).then(
      () => sendAccepted(reply),
      (err: unknown) => {
        request.log.error({ err }, 'MCP answer could not be routed to the instance waiting for it')
        // Not accepted: the client may send it again.
        return sendError(reply, 503, undefined, ErrorCode.InternalError, 'Service unavailable: the answer could not be delivered; send it again')
      })
  }

  async function methodNotAllowed (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    reply.header('allow', 'POST')
    return sendError(reply, 405, undefined, ErrorCode.InvalidRequest, 'Method Not Allowed: send JSON-RPC messages with POST')
  }

  // What the endpoint's routes log never shows the Authorization header.
  const loggerFactory = redactingLoggerFactory(fastify)
  const childLoggerFactory = loggerFactory === undefined ? {} : { childLoggerFactory: loggerFactory }
  // The source check first (cheapest), then the token, both before the body is read.
  const onRequest = auth === undefined ? guard : [guard, auth.authenticate]
  auth?.serveMetadata(fastify, loggerFactory)

  await fastify.register(async function mcpEndpoint (child: FastifyInstance) {
    installJsonParser(child, options.bodyLimit)
    child.setErrorHandler(endpointErrorHandler)
    child.route({ method: 'POST', url: options.path, onRequest, ...childLoggerFactory, handler: handlePost })
    child.route({ method: ['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH'], url: options.path, exposeHeadRoute: false, onRequest, ...childLoggerFactory, handler: methodNotAllowed })
  }, typeof prefix === 'string' ? { prefix } : {})
}

const TOOLS_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'tools' })
const PROMPTS_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'prompts' })
const RESOURCES_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'resources' })

/** Waits for the parts that say when they are ready, bounded; on failure closes them and fails registration. */
async function partsReady (parts: Array<EventBus | AnswerRouter>, closeParts: () => Promise<void>): Promise<void> {
  const waits = parts.flatMap((part) => part.ready === undefined ? [] : [part.ready()])
  if (waits.length === 0) return
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      Promise.all(waits),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${SCALE_READY_LIMIT_MS} ms`)), SCALE_READY_LIMIT_MS)
      })
    ])
  } catch (err) {
    await closeParts().catch(() => {})
    throw new FST_MCP_SCALE_UNAVAILABLE(err instanceof Error ? err.message : String(err), { cause: err })
  } finally {
    clearTimeout(timer)
  }
}

export const mcpCapabilities = fp(plugin, { fastify: '5.x', name: 'fastify-mcp-capabilities' })
