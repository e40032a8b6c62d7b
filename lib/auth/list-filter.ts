/**
 * `filterLists: true`: a list result shows the caller only the tools,
 * prompts, resources and resource templates whose declared scopes (REQUIRED_SCOPES on the
 * handler that serves them) the caller's token holds. Such a result depends
 * on the caller, so in the modern era it is marked `cacheScope: "private"`.
 * The call itself is still checked: hiding an item is not the access control.
 */
import { scopesRequired } from '../server-module/scopes.js'
import type { JsonObject, ServerModule } from '../server-module/contract.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { VerifiedCaller } from './verified-token.js'

/**
 * List method → the array it returns, the handler that serves one item, and
 * the item field its scope requirement is asked with. A template is asked as
 * `{ uriTemplate }`: the define helpers answer with that template's scopes.
 */
const LISTS: Readonly<Record<string, { items: string, handler: string, key: 'name' | 'uri' | 'uriTemplate' }>> = Object.freeze({
  'tools/list': { items: 'tools', handler: 'callTool', key: 'name' },
  'prompts/list': { items: 'prompts', handler: 'getPrompt', key: 'name' },
  'resources/list': { items: 'resources', handler: 'readResource', key: 'uri' },
  'resources/templates/list': { items: 'resourceTemplates', handler: 'readResource', key: 'uriTemplate' },
  // The Skills extension (issue 32): a skill is asked of skills/get by its SKILL.md URI.
  'skills/list': { items: 'skills', handler: 'getSkill', key: 'uri' }
})

export const FILTERED_LISTS: ReadonlySet<string> = new Set(Object.keys(LISTS))

/** The result with only what `caller` may use; `modern` adds the private cache scope. */
export function filterList (server: ServerModule, method: string, result: JsonObject, caller: VerifiedCaller | undefined, modern: boolean): JsonObject {
  const list = LISTS[method]
  const items = list === undefined ? undefined : result[list.items]
  if (list === undefined || !Array.isArray(items)) return result
  const handler = (server as Record<string, unknown>)[list.handler]
  const visible = items.filter((item) => {
    if (!isJsonObject(item) || typeof item[list.key] !== 'string') return true
    const needed = scopesRequired(handler, { [list.key]: item[list.key] as string })
    return needed.every((scope) => caller?.scopes.has(scope) === true)
  })
  const out: JsonObject = { ...result, [list.items]: visible }
  if (modern) out.cacheScope = 'private'
  return out
}
