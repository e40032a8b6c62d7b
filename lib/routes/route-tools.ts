/**
 * Routes as tools: with the plugin registered before the routes (as
 * @fastify/swagger is), an `onRoute` hook sees every route declared after it
 * in the plugin's context and the contexts inside it, prefixes included.
 * Those with `config: { mcp: true | {...} }` are kept; at `ready` (when every
 * shared schema is known) each becomes a definition in the tools catalogue.
 */
import type { FastifyInstance, RouteOptions } from 'fastify'
import { FST_MCP_INVALID_ROUTE_TOOL, FST_MCP_ROUTES_DECLARED_BEFORE } from '../errors.js'
import { array, custom, func, group, integer, toggle } from '../check/option-spec.js'
import type { Catalog } from '../definitions/catalog.js'
import type { ToolEntry } from '../definitions/tools.js'
import type { ServedContexts } from '../hooks/hooked-decorator.js'
import type { HandlerContext } from '../server-module/contract.js'
import { installInnerRequestChecks, ROUTE_TOOL } from './inner-request.js'
import { checkRouteTool, RESERVED_HEADERS } from './route-config.js'
import { createRouteCaller, type RouteCallSettings } from './route-call.js'
import { type CollectedRoute, routeToolEntry } from './route-tool.js'
import { sharedSchemasOf } from './route-schema.js'
import { routesDeclaredSoFar } from './declared-routes.js'

export type { RouteToolOptions } from './route-config.js'

/** Largest answer body a route-backed tool reads, by default. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024

/** The `routes` option: routes with `config.mcp` served as tools (`true` takes every default). */
export interface RoutesOptions {
  /**
   * Headers of the MCP request copied onto each route's request, e.g.
   * `['authorization']` so the route's own auth hook checks the MCP
   * caller's bearer token; default none (nothing of the MCP request reaches a route unasked).
   */
  forwardHeaders?: string[]
  /** Headers computed per call from the handler context (`ctx.auth`, `ctx.request`, ...), after the forwarded ones. */
  headers?: (ctx: HandlerContext) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>
  /**
   * Largest answer body of a route passed on to the client, in bytes; the answer is read as a stream and
   * the route's request aborted once it passes this (a tool error, logged). Default 1048576 (1 MiB).
   */
  maxResponseBytes?: number
}

const FORWARDED_HEADER = custom('a header name', (value, at): string => {
  if (typeof value !== 'string' || value.length === 0) at.error('expected a header name')
  const name = (value as string).toLowerCase()
  if (RESERVED_HEADERS.has(name) && name !== 'authorization' && name !== 'cookie' && name !== 'proxy-authorization') {
    at.error(`"${name}" belongs to the MCP request's framing and cannot be forwarded`)
  }
  return name
}, true)

/** The `routes` option in the plugin's option tree: `true` takes every default, `false`/absent serves no route. */
export const ROUTES_OPTION = toggle(group({
  forwardHeaders: array(FORWARDED_HEADER, { expects: 'an array of header names' }),
  headers: func<NonNullable<RouteCallSettings['headers']>>('a function of the handler context returning headers'),
  maxResponseBytes: integer({ min: 1, unit: 'bytes', default: DEFAULT_MAX_RESPONSE_BYTES })
}, {
  finish: (routes): RouteCallSettings => ({
    forwardHeaders: [...new Set(routes.forwardHeaders ?? [])],
    headers: routes.headers,
    maxResponseBytes: routes.maxResponseBytes
  })
}), false)

const METHODS_NOT_TOOLS = new Set(['HEAD', 'OPTIONS'])

/**
 * Watches the routes declared from here on; with `settings` (the `routes`
 * option) they join `catalog` when the returned step runs (the plugin's ready
 * sequence, lib/plugin.ts), without it a route asking to be a tool fails
 * where it is declared.
 */
export function installRouteTools (fastify: FastifyInstance, settings: RouteCallSettings | undefined, catalog: Catalog<ToolEntry> | undefined): () => void {
  installInnerRequestChecks(fastify, settings !== undefined)
  // Taken now: the routes declared from here on are the ones the onRoute hook below sees.
  const declaredBefore = settings === undefined ? [] : routesDeclaredSoFar(fastify)
  const routes: Array<{ route: CollectedRoute, context: FastifyInstance }> = []
  fastify.addHook('onRoute', function (options: RouteOptions) {
    const config = options.config as { mcp?: unknown } | undefined
    if (config?.mcp === undefined || config.mcp === false) return
    const methods = (Array.isArray(options.method) ? options.method : [options.method]).map((m) => String(m).toUpperCase())
    const url = options.url
    const where = `${methods.join(',')} ${url}`
    if (settings === undefined || catalog === undefined) {
      throw new FST_MCP_INVALID_ROUTE_TOOL(where, 'the MCP plugin was registered without the `routes` option (set `routes: true`)')
    }
    const mcp = checkRouteTool(config.mcp, where)
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
    const route: CollectedRoute = { method, url, schema: options.schema as Record<string, unknown> | undefined, mcp, constrained: constraints !== undefined && Object.keys(constraints).length > 0 }
    // The key its requests are checked against (lib/routes/inner-request.ts); the user's config object is left as it is.
    options.config = { ...options.config, [ROUTE_TOOL]: route } as RouteOptions['config']
    routes.push({ route, context: this })
  })
  if (settings === undefined || catalog === undefined) return NO_ROUTE_TOOLS
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

const NO_ROUTE_TOOLS = (): void => {}

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

/** Where the tools of `catalog` are served from, for MCP hooks (they apply by context): a route-backed tool's route context. */
export function toolContexts (catalog: Catalog<ToolEntry> | undefined): ServedContexts {
  return {
    of: (name) => catalog?.get(name)?.context,
    all: () => catalog === undefined ? [] : catalog.names().flatMap((name) => catalog.entry(name)?.context ?? [])
  }
}
