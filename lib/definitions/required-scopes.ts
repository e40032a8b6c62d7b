/**
 * Marks the handlers the define helpers return with the scopes each call
 * needs (the per-handler contract of lib/server-module/scopes.ts).
 */
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
