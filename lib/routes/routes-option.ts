/**
 * The `routes` option (routes with `config.mcp` served as tools), checked
 * with the other options at registration (lib/options.ts). Apart from the
 * machinery it turns on (lib/routes/route-tools.ts), which is loaded only
 * when the option is set (lib/routes/route-tools-on-demand.ts).
 */
import { array, custom, func, group, integer, toggle } from '../check/option-spec.js'
import type { HandlerContext } from '../server-module/contract.js'
import type { RouteCallSettings } from './route-call.js'
import { RESERVED_HEADERS } from './reserved-headers.js'

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
