/**
 * Marks the handlers the define helpers return with the scopes each call
 * needs (the per-handler contract of lib/server-module/scopes.ts).
 */
import type { JsonObject } from '../protocol/jsonrpc.js'
import { REQUIRED_SCOPES, type ScopeRequirement } from '../server-module/scopes.js'

export type { ScopeRequirement }

/** Sets `handler[REQUIRED_SCOPES]` when any definition names scopes; returns the handler. */
export function withRequiredScopes<H extends object> (handler: H, requirement: ScopeRequirement | undefined): H {
  if (requirement !== undefined) {
    Object.defineProperty(handler, REQUIRED_SCOPES, { value: requirement, enumerable: false })
  }
  return handler
}

/** The requirement a handler made by the define helpers carries (one that needs nothing when it has none). */
export function requirementOf (handler: object): ScopeRequirement {
  const requirement = (handler as { [REQUIRED_SCOPES]?: ScopeRequirement })[REQUIRED_SCOPES]
  return typeof requirement === 'function' ? requirement : () => undefined
}

/** What a call names when it names no definition and needs nothing (a name that is not a string). */
export const NEEDS_NOTHING: { readonly scopes: undefined } = Object.freeze({ scopes: undefined })

/**
 * The requirement of a define helper's handler serving definitions beside a
 * raw handler: the definition a call targets (`defined`) needs its own
 * `scopes`; a call that targets none needs what the raw handler declares
 * (its REQUIRED_SCOPES, read once), or nothing.
 */
export function definedOrRaw (
  defined: (params: JsonObject) => { readonly scopes: readonly string[] | undefined } | undefined,
  raw: unknown
): ScopeRequirement {
  const declared = typeof raw === 'function' ? (raw as { [REQUIRED_SCOPES]?: unknown })[REQUIRED_SCOPES] : undefined
  const rawRequirement = typeof declared === 'function' ? declared as ScopeRequirement : undefined
  return (params) => {
    const entry = defined(params)
    if (entry !== undefined) return entry.scopes
    return rawRequirement === undefined ? undefined : rawRequirement(params)
  }
}
