/**
 * The Fastify plugin: wires the endpoint together. It checks the options,
 * opens the endpoint's live state (lib/endpoint/state.ts: capabilities,
 * shared parts, streams, tasks, waits), exposes `fastify.mcp`, closes the
 * state with the app, and mounts the HTTP routes whose POST goes to the
 * JSON-RPC dispatcher (lib/endpoint/dispatcher.ts).
 *
 * What instances behind a load balancer must share goes through pluggable
 * parts (lib/parts/), in memory by default: `notify*()` publish on the event
 * bus and this endpoint's listen streams hear what the bus delivers, from
 * any instance; legacy answers that land here for another instance's
 * request are forwarded by the answer router.
 */
import type { FastifyInstance, FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { LegacyServerCapabilities, ModernServerCapabilities } from './server-module/capabilities.js'
import { openEndpointState } from './endpoint/state.js'
import { FST_MCP_ALREADY_REGISTERED } from './errors.js'
import { checkServerModule } from './server-module/module-check.js'
import { createDispatcher } from './endpoint/dispatcher.js'
import { mountEndpoint } from './endpoint/http-routes.js'
import { type DeploymentEra, type McpCapabilitiesOptions, resolveOptions, type ServerInfo } from './options.js'
import { keepTickShapesAlive } from './response/tick-shapes.js'
import { createEndpointAuthorization } from './endpoint/authorization.js'
import type { ProtectedResourceMetadata } from './auth/protected-resource-metadata.js'
import type { McpEvent } from './parts/event-bus.js'
import { HookRegistry } from './hooks/registry.js'
import type { McpHookName, McpHooks } from './hooks/types.js'
import { McpTelemetry } from './telemetry/tracing.js'
import { modernErrorStatus } from './endpoint/modern-era.js'
import { composeServer } from './definitions/compose.js'
import { createUiListFilter } from './apps/ui-view.js'
import type { ListFilter } from './endpoint/state.js'
import type { LivePrompts, LiveResources, LiveTools } from './definitions/live.js'
import { installRouteTools } from './routes/route-tools.js'

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
   * nobody listens here, or with a bus that delivers its own events later:
   * see `EventBus.publish`). A failure to reach the other instances is logged.
   */
  notifyToolsChanged (): number
  /** Same for `notifications/prompts/list_changed`. */
  notifyPromptsChanged (): number
  /** Same for `notifications/resources/list_changed`. */
  notifyResourcesChanged (): number
  /** Sends `notifications/resources/updated` for `uri` on every stream subscribed to exactly that URI. */
  notifyResourceUpdated (uri: string): number
  /**
   * The tools defined with `defineTools` (or `defineTool`), changed while the
   * server runs: `add`, `update`, `remove`, `disable`, `enable` by name
   * (see lib/definitions/live.ts for how changes reach other instances).
   */
  readonly tools: LiveTools
  readonly prompts: LivePrompts
  readonly resources: LiveResources
  /** How many `subscriptions/listen` streams are open. */
  readonly listenStreams: number
  /**
   * Adds a hook around MCP operations (docs/routes-and-hooks.md): `onRequest`,
   * `preHandler`, `onResult`, `onError`. Hooks added in the context the plugin
   * was registered in (or by an fp-wrapped plugin) apply to every MCP request;
   * hooks added in a child context apply to the route-backed tools declared
   * there. Hooks are fixed once the app is ready.
   */
  addHook<N extends McpHookName> (name: N, hook: McpHooks[N]): void
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
  const resolved = resolveOptions(opts)
  if (fastify.hasDecorator('mcp')) throw new FST_MCP_ALREADY_REGISTERED()
  // Every definition group on the module in one catalogue per kind, beside the raw handlers (definitions/compose.ts).
  const composition = composeServer(resolved.server, resolved.listPageSize, resolved.routes !== undefined)
  const options = composition.module === resolved.server ? resolved : { ...resolved, server: composition.module }
  for (const warning of checkServerModule(options.server)) fastify.log.warn(warning)

  // The resource server (when `authorization` is set), with jose loaded if its JWT verification is used.
  const auth = options.authorization === undefined ? undefined : await createEndpointAuthorization(options.authorization, options.server)
  const state = await openEndpointState(options, composition, fastify.log, chainListFilters(auth?.filterListOutcome, createUiListFilter(options.server)))
  // Each close is idempotent. preClose: Node's server.close() would wait for the open streams;
  // onClose: an app closed before it ever listened.
  fastify.addHook('preClose', state.close)
  fastify.addHook('onClose', state.close)

  // fastify-plugin skips encapsulation, so a `prefix` given to register is applied to the endpoint's own context.
  const given = (opts as { prefix?: unknown }).prefix
  const prefix = typeof given === 'string' ? given : undefined
  const { subscriptions } = state
  const hooks = new HookRegistry()
  const decorator: McpDecorator = Object.freeze({
    capabilities: state.capabilities,
    serverInfo: options.serverInfo,
    era: options.era,
    path: (prefix === undefined ? '' : prefix.replace(/\/+$/, '')) + options.path,
    notifyToolsChanged: () => state.notify(TOOLS_CHANGED),
    notifyPromptsChanged: () => state.notify(PROMPTS_CHANGED),
    notifyResourcesChanged: () => state.notify(RESOURCES_CHANGED),
    notifyResourceUpdated: (uri: string) => {
      if (typeof uri !== 'string') throw new TypeError('notifyResourceUpdated(uri): uri must be a string')
      return state.notify({ type: 'resourceUpdated', uri })
    },
    tools: state.live.tools,
    prompts: state.live.prompts,
    resources: state.live.resources,
    get listenStreams () {
      return subscriptions.size
    },
    addHook (): void {
      throw new TypeError('fastify.mcp.addHook is called on fastify.mcp of a Fastify instance')
    },
    authorization: auth === undefined
      ? undefined
      : Object.freeze({
        resource: auth.resourceServer.settings.resource,
        metadata: auth.resourceServer.metadata,
        metadataUrl: auth.resourceServer.metadataUrl,
        clearTokenCache: () => auth.resourceServer.clearCache()
      })
  })
  // `fastify.mcp` of each context adds hooks in that context (the getter's `this`), as `fastify.addHook` does.
  const views = new WeakMap<FastifyInstance, McpDecorator>()
  fastify.decorate('mcp', {
    getter (this: FastifyInstance): McpDecorator {
      let view = views.get(this)
      if (view === undefined) {
        const context = this
        view = Object.freeze(Object.create(decorator, {
          addHook: { value: <N extends McpHookName>(name: N, hook: McpHooks[N]) => hooks.add(context, name, hook), enumerable: true }
        }) as McpDecorator)
        views.set(this, view)
      }
      return view
    }
  })
  // Routes declared from here on with `config.mcp` become tools of the catalogue at ready (lib/routes/), before the hooks settle.
  installRouteTools(fastify, options.routes, composition.tools)
  const telemetry = options.telemetry === undefined ? undefined : await McpTelemetry.load(options.telemetry)
  fastify.addHook('onReady', function settleOperations () {
    const tools = composition.tools
    const contextOfTool = (name: string): FastifyInstance | undefined => tools?.get(name)?.context
    for (const context of hooks.idleContexts(fastify, tools === undefined ? [] : tools.names().flatMap((name) => tools.entry(name)?.context ?? []))) {
      context.log.warn('MCP hooks were added in a context that serves no MCP operation (no route-backed tool is declared in it or below): they will not run')
    }
    state.operations.configure(hooks.settle(fastify, contextOfTool), telemetry, (modern, code) => modern ? modernErrorStatus(code) : 200, auth?.checkTarget)
  })
  // Per-request state lives in one slot, declared here and filled on first use (lib/handler/request-scope.ts).
  fastify.decorateRequest('mcpScope', null)

  await mountEndpoint(fastify, {
    path: options.path,
    prefix,
    bodyLimit: options.limits.bodyLimit,
    policy: { allowedOrigins: options.allowedOrigins, allowedHosts: options.allowedHosts },
    auth,
    handlePost: createDispatcher(state, auth)
  })
}

const TOOLS_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'tools' })
const PROMPTS_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'prompts' })
const RESOURCES_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'resources' })

/** Both list steps in turn (authorization's, then the MCP Apps view); either may be absent. */
function chainListFilters (first: ListFilter | undefined, second: ListFilter | undefined): ListFilter | undefined {
  if (first === undefined || second === undefined) return first ?? second
  return (method, outcome, request, modern) => second(method, first(method, outcome, request, modern), request, modern)
}

export const mcpCapabilities = fp(plugin, { fastify: '5.x', name: 'fastify-mcp-capabilities' })
