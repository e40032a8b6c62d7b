/**
 * A route declared with `config.mcp` (other than `false`): what both
 * `onRoute` hooks read of it, the one serving route tools
 * (lib/routes/route-tools.ts) and the one refusing them without the
 * `routes` option (lib/routes/route-tools-on-demand.ts).
 */
import type { RouteOptions } from 'fastify'

export interface MarkedRoute {
  /** `config.mcp` as declared. */
  readonly mcp: unknown
  /** The route's methods, upper case. */
  readonly methods: string[]
  /** Methods and path, as errors name the route: `GET,POST /items`. */
  readonly where: string
}

/** The route's `config.mcp` with its methods and name; undefined when it asks to be no tool. */
export function markedRoute (options: RouteOptions): MarkedRoute | undefined {
  const config = options.config as { mcp?: unknown } | undefined
  if (config?.mcp === undefined || config.mcp === false) return undefined
  const methods = (Array.isArray(options.method) ? options.method : [options.method]).map((m) => String(m).toUpperCase())
  return { mcp: config.mcp, methods, where: `${methods.join(',')} ${options.url}` }
}
