/**
 * `filterLists: true`: a list result shows the caller only the tools,
 * prompts, resources and resource templates whose declared scopes (the
 * requirement of the handler that serves one item, from the composed
 * module's scope table) the caller's token holds. Such a result depends
 * on the caller, so in the modern era it is marked `cacheScope: "private"`.
 * The call itself is still checked: hiding an item is not the access control.
 */
import { scopesRequired } from '../server-module/scopes.js'
import type { JsonObject } from '../server-module/contract.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { type HandlerName, LIST_METHODS, type ListMeta } from '../protocol/methods.js'
import type { ScopeRequirement } from '../server-module/scopes.js'
import type { VerifiedCaller } from './verified-token.js'

/**
 * List method → what it lists (the method table's `list`): the array it
 * returns, the handler that serves one item, and the item field its scope
 * requirement is asked with. A template is asked as `{ uriTemplate }`: the
 * define helpers answer with that template's scopes.
 */
const LISTS: ReadonlyMap<string, ListMeta<HandlerName>> = new Map(LIST_METHODS)

export const FILTERED_LISTS: ReadonlySet<string> = new Set(LISTS.keys())

/** The result with only what `caller` may use; `modern` adds the private cache scope. */
export function filterList (scopes: Readonly<Partial<Record<HandlerName, ScopeRequirement>>>, method: string, result: JsonObject, caller: VerifiedCaller | undefined, modern: boolean): JsonObject {
  const list = LISTS.get(method)
  const items = list === undefined ? undefined : result[list.items]
  if (list === undefined || !Array.isArray(items)) return result
  const requirement = scopes[list.itemHandler]
  const visible = items.filter((item) => {
    if (!isJsonObject(item) || typeof item[list.key] !== 'string') return true
    const needed = scopesRequired(requirement, { [list.key]: item[list.key] as string })
    return needed.every((scope) => caller?.scopes.has(scope) === true)
  })
  const out: JsonObject = { ...result, [list.items]: visible }
  if (modern) out.cacheScope = 'private'
  return out
}
