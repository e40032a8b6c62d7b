/**
 * The Fastify plugin: checks the options at registration, builds everything
 * that does not change per request, and mounts the MCP endpoint (POST for
 * messages; GET and DELETE answer 405, as a stateless server has no
 * standalone stream and no sessions). Open `subscriptions/listen` streams get
 * their final response and end before the server stops (`preClose`).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import fp from 'fastify-plugin'
import { installJsonParser } from './endpoint/body-parser.js'
import type { LegacyServerCapabilities, ModernServerCapabilities } from './capabilities/build.js'
import { createEndpointState } from './endpoint/state.js'
import { sendAccepted, sendError } from './response/reply.js'
import { endpointErrorHandler } from './endpoint/error-handler.js'
import { FST_MCP_ALREADY_REGISTERED, FST_MCP_INVALID_OPTION } from './errors.js'
import { checkServerModule } from './capabilities/module-check.js'
import { classifyMessage } from './protocol/jsonrpc.js'
import { createLegacyHandler } from './endpoint/legacy.js'
import { ErrorCode } from './protocol/mcp-error.js'
import { createModernHandler, isModernRequest } from './endpoint/modern.js'
import { META_PROTOCOL_VERSION } from './protocol/meta.js'
import { type DeploymentEra, type McpCapabilitiesOptions, resolveOptions, type ServerInfo } from './options.js'
import { PendingRequests } from './input/pending-requests.js'
import { checkRequestSource } from './endpoint/security.js'
import { SubscriptionRegistry } from './streams/subscriptions.js'
import { type EventBus, MemoryEventBus } from './scale/event-bus.js'
import { TaskService } from './tasks/service.js'
import { keepTickShapesAlive } from './response/tick-shapes.js'
import { isModernVersion } from './protocol/versions.js'
import { createEndpointAuthorization } from './endpoint/authorization.js'
import { redactingLoggerFactory } from './endpoint/log-redaction.js'
import type { ProtectedResourceMetadata } from './auth/protected-resource-metadata.js'

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
   * stream that asked for it; returns how many streams it was written to (0 when
   * nobody listens).
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
  // The resource server (when `authorization` is set), with jose loaded if its JWT verification is used.
  const auth = options.authorization === undefined ? undefined : await createEndpointAuthorization(options.authorization, options.server)
  const state = createEndpointState(options, auth?.filterListOutcome)
  // Legacy server-to-client requests awaiting the client's POSTed response (in this process only).
  const pending = new PendingRequests(options.clientRequestTimeoutMs)
  const handleLegacy = createLegacyHandler(state, pending)
  const subscriptions = new SubscriptionRegistry({ keepAliveMs: options.keepAliveMs, serverInfo: options.serverInfo })
  // Task changes travel on the event bus: to the listen streams of every instance, and to the instance running the work.
  const bus: EventBus = new MemoryEventBus()
  bus.subscribe((event) => {
    if (event.type === 'taskStatus') subscriptions.notifyTaskStatus(event.owner, event.task)
  })
  // The tasks extension: records in the configured store (default: per endpoint, in memory), work in this process.
  let tasks: TaskService | undefined
  if (options.tasks) {
    try {
      tasks = new TaskService({ limits: options.taskLimits, owner: options.taskOwner, store: options.taskStore, bus, log: fastify.log })
    } catch (err) {
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
    notifyToolsChanged: () => subscriptions.notifyListChanged('tools'),
    notifyPromptsChanged: () => subscriptions.notifyListChanged('prompts'),
    notifyResourcesChanged: () => subscriptions.notifyListChanged('resources'),
    notifyResourceUpdated: (uri: string) => {
      if (typeof uri !== 'string') throw new TypeError('notifyResourceUpdated(uri): uri must be a string')
      return subscriptions.notifyResourceUpdated(uri)
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
    pending.close()
    await tasks?.close()
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
    let answer: FastifyReply | Promise<FastifyReply>
    let denied: FastifyReply | undefined
    if (message.kind === 'invalid') {
      answer = sendError(reply, 400, message.id, message.code, message.message)
    } else if (message.kind === 'response') {
      // A client's answer to a legacy server-to-client request; an unknown id is acknowledged all the same.
      pending.settle(request.body)
      answer = sendAccepted(reply)
    } else if (message.kind === 'notification') {
      answer = sendAccepted(reply)
    } else if (auth !== undefined && (denied = auth.checkScopes(request, reply, message.id, message.method, message.params)) !== undefined) {
      answer = denied
    } else if (isModernRequest(message)) {
      answer = handleModern(message, request, reply)
    } else if (state.serveModern && isModernVersion(request.headers['mcp-protocol-version'])) {
      // The header says modern but the body has no _meta version: a modern request missing its metadata.
      answer = sendError(reply, 400, message.id, ErrorCode.InvalidParams, `Invalid params: _meta must carry "${META_PROTOCOL_VERSION}"`)
    } else {
      answer = handleLegacy(message, request, reply)
    }
    return answer instanceof Promise ? answer : undefined
  }

  async function methodNotAllowed (_request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    reply.header('allow', 'POST')
    return sendError(reply, 405, undefined, ErrorCode.InvalidRequest, 'Method Not Allowed: send JSON-RPC messages with POST')
  }

  // What the endpoint's routes log never shows the Authorization header.
  const childLoggerFactory = redactingLoggerFactory(fastify)
  // The source check first (cheapest), then the token, both before the body is read.
  const onRequest = auth === undefined ? guard : [guard, auth.authenticate]
  auth?.serveMetadata(fastify, childLoggerFactory)

  await fastify.register(async function mcpEndpoint (child: FastifyInstance) {
    installJsonParser(child, options.bodyLimit)
    child.setErrorHandler(endpointErrorHandler)
    child.route({ method: 'POST', url: options.path, onRequest, childLoggerFactory, handler: handlePost })
    child.route({ method: ['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH'], url: options.path, exposeHeadRoute: false, onRequest, childLoggerFactory, handler: methodNotAllowed })
  }, typeof prefix === 'string' ? { prefix } : {})
}

export const mcpCapabilities = fp(plugin, { fastify: '5.x', name: 'fastify-mcp-capabilities' })
