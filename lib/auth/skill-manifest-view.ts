/**
 * A caller's view of skill manifests, with authorization: a skill nested in
 * another is also the enclosing skill's supporting files, but reading them
 * needs the nested skill's own scopes too (lib/definitions/skill-serving.ts). A
 * host reads only what a manifest lists and cannot load a skill one of whose
 * listed files it cannot read (docs/skills.md), so the enclosing skill's
 * entry (`skills/list`, `skills/get`) leaves out, for a caller without all
 * of them, the files they guard. A manifest lists its files in `resources`
 * alone, so that is all that changes.
 *
 * Unlike `filterLists` (lib/auth/list-filter.ts), which hides whole skills
 * and only when asked, this always applies: a manifest never promises a file
 * its caller may not read. A result holding such an entry depends on the
 * caller, so in the modern era it is marked `cacheScope: "private"`, for
 * every caller. Results without one (no nested skill with scopes of its own)
 * are passed on as they are, prepared bytes and all.
 */
import type { JsonObject } from '../server-module/contract.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { NestedGuards } from '../definitions/skill-serving.js'
import type { VerifiedCaller } from './verified-token.js'

/** The methods whose results carry manifests: the field holding them, and whether it is a list. */
const MANIFESTS: ReadonlyMap<string, { readonly field: string, readonly list: boolean }> = new Map([
  ['skills/list', { field: 'skills', list: true }],
  ['skills/get', { field: 'skill', list: false }]
])

/** Whether `method`'s results carry skill manifests. */
export function carriesManifests (method: string): boolean {
  return MANIFESTS.has(method)
}

/** `skill` without the files `caller` may not read; the same object when it loses none. */
function entryFor (skill: unknown, guards: NestedGuards, caller: VerifiedCaller): unknown {
  if (!isJsonObject(skill) || typeof skill.uri !== 'string' || !Array.isArray(skill.resources)) return skill
  const guarded = guards.get(skill.uri)
  if (guarded === undefined) return skill
  const readable = skill.resources.filter((file) => {
    const needed = isJsonObject(file) && typeof file.uri === 'string' ? guarded.get(file.uri) : undefined
    return needed === undefined || needed.every((scope) => caller.scopes.has(scope))
  })
  return readable.length === skill.resources.length ? skill : { ...skill, resources: readable }
}

/**
 * `result` of `method` as `caller` may use it: each manifest without the
 * nested files it may not read. Unchanged when no manifest in it has any
 * nested guarded file, or without a verified caller (whose reads are not
 * checked either).
 */
export function manifestsFor (guards: NestedGuards, method: string, result: JsonObject, caller: VerifiedCaller | undefined, modern: boolean): JsonObject {
  const carried = MANIFESTS.get(method)
  if (carried === undefined || guards.size === 0 || caller === undefined) return result
  const value = result[carried.field]
  const skills = carried.list ? (Array.isArray(value) ? value : []) : [value]
  if (!skills.some((skill) => isJsonObject(skill) && typeof skill.uri === 'string' && guards.has(skill.uri))) return result
  const viewed = skills.map((skill) => entryFor(skill, guards, caller))
  const out: JsonObject = { ...result, [carried.field]: carried.list ? viewed : viewed[0] }
  if (modern) out.cacheScope = 'private'
  return out
}
