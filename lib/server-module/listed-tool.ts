/**
 * A `callTool` may carry `handler[LISTED_TOOL]`: a function of a tool name
 * returning the tool as listed right now (undefined: not one of its own, ask
 * `listTools`; null: known but not served, e.g. disabled). The define helpers
 * set it, so per-call checks that need the listed tool (the `Mcp-Param-*`
 * headers) look up one tool instead of walking the list, and stay right when
 * tools change at runtime.
 */
import type { JsonObject } from '../protocol/jsonrpc.js'

export const LISTED_TOOL: unique symbol = Symbol.for('fastify-mcp-capabilities.listedTool')

export type ListedToolLookup = (name: string) => JsonObject | null | undefined

export function listedToolLookup (handler: unknown): ListedToolLookup | undefined {
  if (typeof handler !== 'function') return undefined
  const lookup = (handler as { [LISTED_TOOL]?: unknown })[LISTED_TOOL]
  return typeof lookup === 'function' ? lookup as ListedToolLookup : undefined
}
