/**
 * What a route says in `config: { mcp: ... }` to become a tool, checked when
 * the route is declared (the error points at that call, not at `ready()`).
 */
import { FST_MCP_INVALID_ROUTE_TOOL } from '../errors.js'
import type { Icon, ToolAnnotations } from '../protocol/schemas.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { isPlainObject } from '../definitions/plain.js'
import { RESERVED_HEADERS } from './reserved-headers.js'

/** `config.mcp` of a route: `true`, or this object. */
export interface RouteToolOptions {
  /** The tool's name; default the route's `schema.operationId`, else method and path (`get_users_by_id`). */
  name?: string
  title?: string
  /** Default the route's `schema.description`, else its `schema.summary`. */
  description?: string
  /** Merged over the hints derived from the method (GET read-only; PUT idempotent; DELETE destructive and idempotent). */
  annotations?: ToolAnnotations
  icons?: Icon[]
  _meta?: JsonObject
  /** Scopes a caller needs for this tool, beyond the endpoint's (with `authorization`). */
  scopes?: string[]
  /** For a route declared with several methods: the one the tool calls. */
  method?: string
  /** Path parameters become arguments; default true (they are needed to build the URL: false only when there are none). */
  params?: boolean
  /** Querystring properties become arguments; default true. */
  querystring?: boolean
  /**
   * The body: `true` (default) spreads an object body's properties into the
   * arguments (any other body is one argument, `body`); a string makes the
   * whole body one argument of that name; `false` sends none.
   */
  body?: boolean | string
  /** Request headers that become arguments (by name; their schema from the route's `schema.headers`, else a string). */
  headers?: string[]
}

export interface CheckedRouteTool extends Omit<RouteToolOptions, 'headers'> {
  readonly headers: readonly string[]
}

const KNOWN = ['name', 'title', 'description', 'annotations', 'icons', '_meta', 'scopes', 'method', 'params', 'querystring', 'body', 'headers']

export function checkRouteTool (value: unknown, route: string): CheckedRouteTool {
  if (value === true) return { headers: [] }
  if (!isPlainObject(value)) throw new FST_MCP_INVALID_ROUTE_TOOL(route, 'config.mcp must be true or an object { name?, title?, description?, annotations?, params?, querystring?, body?, headers?, ... }')
  for (const key of Object.keys(value)) {
    if (!KNOWN.includes(key)) throw new FST_MCP_INVALID_ROUTE_TOOL(route, `config.mcp.${key} is not an option (known: ${KNOWN.join(', ')})`)
  }
  for (const key of ['name', 'title', 'description', 'method'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'string') throw new FST_MCP_INVALID_ROUTE_TOOL(route, `config.mcp.${key} must be a string`)
  }
  for (const key of ['params', 'querystring'] as const) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') throw new FST_MCP_INVALID_ROUTE_TOOL(route, `config.mcp.${key} must be a boolean`)
  }
  const body = value.body
  if (body !== undefined && typeof body !== 'boolean' && (typeof body !== 'string' || body.length === 0)) {
    throw new FST_MCP_INVALID_ROUTE_TOOL(route, 'config.mcp.body must be a boolean or the name of the argument holding the whole body')
  }
  for (const key of ['annotations', '_meta'] as const) {
    if (value[key] !== undefined && !isPlainObject(value[key])) throw new FST_MCP_INVALID_ROUTE_TOOL(route, `config.mcp.${key} must be an object`)
  }
  const headers = value.headers ?? []
  if (!Array.isArray(headers) || !headers.every((h) => typeof h === 'string' && /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h))) {
    throw new FST_MCP_INVALID_ROUTE_TOOL(route, 'config.mcp.headers must be an array of header names')
  }
  const lower = headers.map((h: string) => h.toLowerCase())
  const reserved = lower.find((h) => RESERVED_HEADERS.has(h))
  if (reserved !== undefined) {
    throw new FST_MCP_INVALID_ROUTE_TOOL(route, `config.mcp.headers: "${reserved}" cannot be an argument (identity reaches routes through the endpoint's routes option, framing is the endpoint's)`)
  }
  const { headers: _h, ...rest } = value
  return { ...(rest as Omit<RouteToolOptions, 'headers'>), headers: [...new Set(lower)] }
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Serve this route as an MCP tool (the plugin's `routes` option must be on): `true`, or the tool's settings. */
    mcp?: boolean | RouteToolOptions
  }
}
