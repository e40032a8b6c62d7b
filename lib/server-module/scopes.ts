/**
 * The scopes a call needs beyond the endpoint's own, as a function of the
 * request's params (`ScopeRequirement`). Defined tools, prompts, resources
 * and skills declare theirs with `scopes` on each definition; the composed
 * catalogue answers for them (lib/definitions/compose.ts `scopes`).
 *
 * `REQUIRED_SCOPES` is the one route for a raw, hand-written handler: set
 * `handler[REQUIRED_SCOPES] = (params) => scopes` before the plugin is
 * registered. It is read once, at registration (lib/definitions/compose.ts),
 * never per request; authorization enforces it, and `filterLists` also asks
 * `readResource`'s requirement with `{ uriTemplate }` for each listed
 * template (a requirement that does not know the key answers undefined).
 */
import type { JsonObject } from '../protocol/jsonrpc.js'

/**
 * Put on a raw handler function: `(params) => scopes` (or undefined for none)
 * names the scopes a call with those params needs. Read once, at registration.
 */
export const REQUIRED_SCOPES: unique symbol = Symbol.for('fastify-mcp-capabilities.requiredScopes')

export type ScopeRequirement = (params: JsonObject) => readonly string[] | undefined

/** The requirement a raw handler declares with `REQUIRED_SCOPES`; undefined when it declares none. */
export function declaredScopes (handler: unknown): ScopeRequirement | undefined {
  if (typeof handler !== 'function') return undefined
  const requirement = (handler as { [REQUIRED_SCOPES]?: unknown })[REQUIRED_SCOPES]
  return typeof requirement === 'function' ? requirement as ScopeRequirement : undefined
}

/** The scopes `requirement` names for a call with `params`; empty when there is none or its answer is malformed. */
export function scopesRequired (requirement: ScopeRequirement | undefined, params: JsonObject): readonly string[] {
  if (requirement === undefined) return []
  const scopes: unknown = requirement(params)
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string' && s.length > 0) : []
}
