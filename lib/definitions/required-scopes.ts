/**
 * Marks the handlers the define helpers return with the scopes each call
 * needs (the per-handler contract of lib/capabilities/scopes.ts).
 */
// Until lib/capabilities/scopes.ts lands, the contract's symbol is declared here.
export const REQUIRED_SCOPES: unique symbol = Symbol.for('fastify-mcp-capabilities.requiredScopes')
export type ScopeRequirement = (params: Record<string, unknown>) => readonly string[] | undefined

/** Sets `handler[REQUIRED_SCOPES]` when any definition names scopes; returns the handler. */
export function withRequiredScopes<H extends object> (handler: H, requirement: ScopeRequirement | undefined): H {
  if (requirement !== undefined) {
    Object.defineProperty(handler, REQUIRED_SCOPES, { value: requirement, enumerable: false })
  }
  return handler
}
