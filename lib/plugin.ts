/**
 * The Fastify plugin: wires the endpoint together, one step per concern. It
 * checks the options, opens the endpoint's live state (lib/endpoint/state.ts:
 * capabilities, shared parts, streams, tasks, waits), exposes `fastify.mcp`,
 * closes the state with the app, runs one ready sequence (route tools, then
 * the hooks and the operations pipeline, then the catalogue catch-up), and
 * mounts the HTTP routes whose POST goes to the JSON-RPC dispatcher
 * (lib/endpoint/dispatcher.ts).
 *
 * What instances behind a load balancer must share goes through pluggable
 * parts (lib/parts/), in memory by default: `notify*()` publish on the event
 * bus and this endpoint's listen streams hear what the bus delivers, from
 * any instance; legacy answers that land here for another instance's
 * request are forwarded by the answer router.
 */
import type { FastifyPluginAsync } from 'fastify'
import { withUiView } from './apps/ui-view.js'
import { fastifyPlugin } from './common/commonjs-dependencies.js'
import { composeServer } from './definitions/compose.js'
import { nestedDefaultsLoading } from './definitions/nested-defaults.js'
import { createDecorator } from './endpoint/decorator.js'
import { createDispatcher } from './endpoint/dispatcher.js'
import { knownNames } from './endpoint/known-names.js'
import { mountEndpoint } from './endpoint/http-routes.js'
import { createStandaloneStream } from './endpoint/standalone-stream.js'
import { createLegacyHandler } from './endpoint/legacy-era.js'
import { createModernHandler } from './endpoint/modern-era.js'
import { modernErrorStatus } from './response/modern-result.js'
import { openEndpointState } from './endpoint/state.js'
import { buildPipeline } from './endpoint/operations.js'
import { FST_MCP_ALREADY_REGISTERED, FST_MCP_FASTIFY_VERSION } from './errors.js'
import { hookedDecorator } from './hooks/hooked-decorator.js'
import { type McpCapabilitiesOptions, resolveOptions } from './options.js'
import { keepTickShapesAlive } from './response/tick-shapes.js'
import { watchRoutes } from './routes/route-tools-on-demand.js'
import { toolContexts } from './routes/tool-contexts.js'
import { checkServerModule } from './server-module/module-check.js'
import { McpTelemetry } from './telemetry/tracing.js'

export type { McpCapabilitiesOptions } from './options.js'
export type { McpDecorator } from './endpoint/mcp-decorator.js'

// As early as possible: a full GC before the first request could otherwise slow every request (see response/tick-shapes.ts).
keepTickShapesAlive()

const plugin: FastifyPluginAsync<McpCapabilitiesOptions> = async (fastify, opts) => {
  // Checked here rather than with fastify-plugin's `fastify: '5.x'`: Fastify matches that range with semver, whose
  // regular expressions cost ~1 ms of every cold start to compile (docs/performance.md "Fastify's version").
  if (!fastify.version.startsWith('5.')) throw new FST_MCP_FASTIFY_VERSION(fastify.version)
  const resolved = resolveOptions(opts)
  if (fastify.hasDecorator('mcp')) throw new FST_MCP_ALREADY_REGISTERED()
  // Every definition group on the module in one catalogue per kind, beside the raw handlers (definitions/compose.ts).
  const composition = composeServer(resolved.server, resolved.limits.listPageSize, resolved.routes !== undefined, resolved.requestState.secret,
    { maxValues: resolved.limits.maxArgumentValues })
  const options = composition.module === resolved.server ? resolved : { ...resolved, server: composition.module }
  for (const warning of checkServerModule(options.server)) fastify.log.warn(warning)
  // TypeBox's Value.Default, when a definition declares nested defaults: loaded before the first call, which then stays synchronous.
  await nestedDefaultsLoading()

  // The resource server, loaded when `authorization` is set (a chunk of its own in the build), with jose if its JWT verification is used.
  const auth = options.authorization === undefined
    ? undefined
    : await (await import('./endpoint/authorization.js')).createEndpointAuthorization(options.authorization, composition.scopes, composition.skills)
  // Lists pass authorization's steps (filterLists, skill manifests per caller), then the MCP Apps view (apps/ui-view.ts).
  const state = await openEndpointState(options, composition, fastify.log, withUiView(options.server, auth?.filterListOutcome))
  // Each close is idempotent. preClose: Node's server.close() would wait for the open streams;
  // onClose: an app closed before it ever listened.
  fastify.addHook('preClose', state.close)
  fastify.addHook('onClose', state.close)

  // fastify-plugin skips encapsulation, so a `prefix` given to register is applied to the endpoint's own context.
  const given = (opts as { prefix?: unknown }).prefix
  const prefix = typeof given === 'string' ? given : undefined
  const path = (prefix === undefined ? '' : prefix.replace(/\/+$/, '')) + options.path
  // Routes declared from here on with `config.mcp` become tools of the catalogue in the ready sequence (lib/routes/, loaded with `routes`).
  const settleRouteTools = await watchRoutes(fastify, options.routes, composition.tools)
  // `@opentelemetry/api` with the `telemetry` option, when installed.
  const telemetry = await McpTelemetry.load(options.telemetry, knownNames(composition))
  // `fastify.mcp`, its addHook bound to each context; the hooks are sealed in the ready sequence.
  const hooks = hookedDecorator(fastify, createDecorator(state, path, auth), toolContexts(composition.tools))
  fastify.decorate('mcp', { getter: hooks.getter })

  // The ready sequence, one step after the other, before the first request.
  fastify.addHook('onReady', async function ready () {
    // 1. Route-backed tools join the catalogue, so the hooks know the contexts that serve them.
    settleRouteTools()
    // 2. The hooks are sealed (a route-backed tool's calls get its route context's) and, with the telemetry,
    //    the operations pipeline is built once and handed over to the eras.
    const errorStatus = (modern: boolean, code: number): number => modern ? modernErrorStatus(code) : 200
    state.operations.handOver(buildPipeline(state.operations.settings, hooks.seal(), telemetry, errorStatus, auth?.checkTarget))
    // 3. With the catalogue complete: the changes other instances recorded.
    await state.catchUp()
  })

  const dispatch = createDispatcher(state, auth, { legacy: createLegacyHandler(state), modern: createModernHandler(state, auth?.endAtExpiry) })
  await mountEndpoint(fastify, {
    path: options.path,
    prefix,
    bodyLimit: options.limits.bodyLimit,
    policy: { allowedOrigins: options.security.allowedOrigins, allowedHosts: options.security.allowedHosts },
    auth,
    handlePost: state.sessions === undefined ? dispatch : state.sessions.wrap(dispatch),
    handleGet: createStandaloneStream(state, auth),
    handleDelete: state.sessions === undefined ? undefined : (request, reply) => (state.sessions as NonNullable<typeof state.sessions>).end(request, reply)
  })
}

export const mcpCapabilities = fastifyPlugin(plugin, { name: 'fastify-mcp-capabilities' })
