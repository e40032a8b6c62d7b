/**
 * Routes as tools, loaded at registration only when the `routes` option is
 * set: the collector, the `config.mcp` checks, the schemas and the
 * in-process call (lib/routes/route-tools.ts and what it uses) sit in a
 * chunk of their own in the build (scripts/build.mjs splits on dynamic
 * imports), which importing the package does not evaluate. The registration
 * waits for it, so it is loaded before the first route is declared.
 */
import type { FastifyInstance, RouteOptions } from 'fastify'
import type { Catalog } from '../definitions/catalog.js'
import type { ToolEntry } from '../definitions/tools.js'
import { FST_MCP_INVALID_ROUTE_TOOL } from '../errors.js'
import { installInnerRequestChecks } from './inner-request.js'
import { markedRoute } from './marked-route.js'
import type { RouteCallSettings } from './route-call.js'

/**
 * Watches the routes declared from here on: with `settings` (the `routes`
 * option) those with `config.mcp` join `catalog` when the returned step runs
 * (the plugin's ready sequence, lib/plugin.ts); without it a route asking to
 * be a tool fails where it is declared.
 */
export async function watchRoutes (fastify: FastifyInstance, settings: RouteCallSettings | undefined, catalog: Catalog<ToolEntry> | undefined): Promise<() => void> {
  if (settings !== undefined && catalog !== undefined) {
    const { installRouteTools } = await import('./route-tools.js')
    return installRouteTools(fastify, settings, catalog)
  }
  installInnerRequestChecks(fastify, false)
  fastify.addHook('onRoute', refuseRouteTool)
  return NO_ROUTE_TOOLS
}

function refuseRouteTool (options: RouteOptions): void {
  const marked = markedRoute(options)
  if (marked !== undefined) throw new FST_MCP_INVALID_ROUTE_TOOL(marked.where, 'the MCP plugin was registered without the `routes` option (set `routes: true`)')
}

const NO_ROUTE_TOOLS = (): void => {}
