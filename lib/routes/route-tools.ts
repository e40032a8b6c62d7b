/**
 * Routes as tools: with the plugin registered before the routes (as
 * @fastify/swagger is), an `onRoute` hook sees every route declared after it
 * in the plugin's context and the contexts inside it, prefixes included.
 * Those with `config: { mcp: true | {...} }` are kept; at `ready` (when every
 * shared schema is known) each becomes a definition in the tools catalogue.
 * Loaded with the `routes` option only (lib/routes/route-tools-on-demand.ts).
 */
import type { FastifyInstance, RouteOptions } from 'fastify'
import { FST_MCP_INVALID_ROUTE_TOOL, FST_MCP_ROUTES_DECLARED_BEFORE } from '../errors.js'
import type { Catalog } from '../definitions/catalog.js'
import type { ToolEntry } from '../definitions/tools.js'
import { installInnerRequestChecks, ROUTE_TOOL } from './inner-request.js'
import { checkRouteTool } from './route-config.js'
import { createRouteCaller, type RouteCallSettings } from './route-call.js'
import { type CollectedRoute, routeToolEntry } from './route-tool.js'
import { sharedSchemasOf } from './route-schema.js'
import { routesDeclaredSoFar } from './declared-routes.js'
import { markedRoute } from './marked-route.js'

const METHODS_NOT_TOOLS = new Set(['HEAD', 'OPTIONS'])

/**
 * Watches the routes declared from here on (with the `routes` option,
 * `settings`); they join `catalog` when the returned step runs (the plugin's
 * ready sequence, lib/plugin.ts).
 */
export function installRouteTools (fastify: FastifyInstance, settings: RouteCallSettings, catalog: Catalog<ToolEntry>): () => void {
  installInnerRequestChecks(fastify, true)
  // Taken now: the routes declared from here on are the ones the onRoute hook below sees.
  const declaredBefore = routesDeclaredSoFar(fastify)
  const routes: Array<{ route: CollectedRoute, context: FastifyInstance }> = []
  fastify.addHook('onRoute', function (options: RouteOptions) {
    const marked = markedRoute(options)
    if (marked === undefined) return
    const { methods, where } = marked
    const mcp = checkRouteTool(marked.mcp, where)
    // A GET route's automatic HEAD twin is not a second tool.
    const candidates = methods.filter((m) => !METHODS_NOT_TOOLS.has(m))
    if (candidates.length === 0) return
    let method = candidates[0] as string
    if (mcp.method !== undefined) {
      method = mcp.method.toUpperCase()
      if (!candidates.includes(method)) throw new FST_MCP_INVALID_ROUTE_TOOL(where, `config.mcp.method "${mcp.method}" is not one of the route's methods`)
    } else if (candidates.length > 1) {
      throw new FST_MCP_INVALID_ROUTE_TOOL(where, 'the route has several methods: name the one the tool calls with config.mcp.method')
    }
    const constraints = options.constraints as Record<string, unknown> | undefined
    const route: CollectedRoute = { method, url: options.url, schema: options.schema as Record<string, unknown> | undefined, mcp, constrained: constraints !== undefined && Object.keys(constraints).length > 0 }
    // The key its requests are checked against (lib/routes/inner-request.ts); the user's config object is left as it is.
    options.config = { ...options.config, [ROUTE_TOOL]: route } as RouteOptions['config']
    routes.push({ route, context: this })
  })
  const call = createRouteCaller(fastify, settings)
  return function settleRouteTools () {
    reportRoutesDeclaredBefore(fastify, declaredBefore, routes.length)
    // The shared schemas of each route's own context, read once per context.
    const shared = new Map<FastifyInstance, ReturnType<typeof sharedSchemasOf>>()
    for (const { route, context } of routes.splice(0)) {
      let schemas = shared.get(context)
      if (schemas === undefined) {
        schemas = sharedSchemasOf(context.getSchemas() as Record<string, unknown>)
        shared.set(context, schemas)
      }
      // The tool belongs to its route's context: that context's MCP hooks apply to its calls (lib/hooks/registry.ts).
      catalog.add({ ...routeToolEntry(route, schemas, call), context })
    }
  }
}

/**
 * Routes declared before the plugin were never seen by its `onRoute` hook and
 * their config cannot be read any more, so one marked `config.mcp` would not be
 * a tool without a word. With no route tool at all the order is surely wrong:
 * `ready()` fails naming them; with some, a warning names them.
 */
function reportRoutesDeclaredBefore (fastify: FastifyInstance, declaredBefore: string[], toolCount: number): void {
  if (declaredBefore.length === 0) return
  if (toolCount === 0) throw new FST_MCP_ROUTES_DECLARED_BEFORE(declaredBefore.join('; '))
  fastify.log.warn({ routes: declaredBefore }, 'fastify-mcp-capabilities: routes were declared before the plugin was registered with `routes` on; only routes declared after it can be tools, so any of these with config.mcp is not one (register the plugin before your routes)')
}
