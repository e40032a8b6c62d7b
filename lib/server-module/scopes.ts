/**
 * The scopes a call needs, declared on the handler that serves it: a handler
 * function may carry `handler[REQUIRED_SCOPES]`, a function of the request's
 * params returning every scope that call needs beyond the endpoint's own (the
 * define helpers set it from each tool's, prompt's and resource's `scopes`).
 * Authorization enforces it; nothing else reads it. `filterLists` also asks
 * `readResource`'s requirement with `{ uriTemplate }` for each listed
 * template (a requirement that does not know the key answers undefined).
 */
import type { JsonObject } from '../protocol/jsonrpc.js'

export const REQUIRED_SCOPES: unique symbol = Symbol.for('fastify-mcp-capabilities.requiredScopes')

export type ScopeRequirement = (params: JsonObject) => readonly string[] | undefined

/** The scopes `handler` declares for a call with `params`; empty when it declares none or its declaration is malformed. */
export function scopesRequired (handler: unknown, params: JsonObject): readonly string[] {
  if (typeof handler !== 'function') return []
  const requirement = (handler as { [REQUIRED_SCOPES]?: unknown })[REQUIRED_SCOPES]
  if (typeof requirement !== 'function') return []
  const scopes: unknown = requirement(params)
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string' && s.length > 0) : []
}
