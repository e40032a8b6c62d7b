/**
 * The scopes each call of a composed handler needs (the contract of
 * lib/server-module/scopes.ts), kept beside the handlers in one table by
 * handler name rather than on the functions: compose.ts fills it with what
 * the raw handlers declare, then each define helper puts in the requirement
 * of the handlers it serves, its definitions' `scopes` first.
 */
import type { HandlerName } from '../protocol/methods.js'
import type { JsonObject } from '../protocol/jsonrpc.js'
import type { ScopeRequirement } from '../server-module/scopes.js'

export type { ScopeRequirement }

/** The scope requirement of each composed handler that has one. */
export type ScopeTable = Partial<Record<HandlerName, ScopeRequirement>>

/** What a call names when it names no definition and needs nothing (a name that is not a string). */
export const NEEDS_NOTHING: { readonly scopes: undefined } = Object.freeze({ scopes: undefined })

/**
 * The requirement of a define helper's handler serving definitions beside a
 * raw handler: the definition a call targets (`defined`) needs its own
 * `scopes`; a call that targets none needs what the raw handler requires
 * (`raw`, read once at registration), or nothing.
 */
export function definedOrRaw (
  defined: (params: JsonObject) => { readonly scopes: readonly string[] | undefined } | undefined,
  raw: ScopeRequirement | undefined
): ScopeRequirement {
  return (params) => {
    const entry = defined(params)
    if (entry !== undefined) return entry.scopes
    return raw === undefined ? undefined : raw(params)
  }
}
