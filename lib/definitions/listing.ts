/**
 * Serves a list method from a catalogue: the whole list, or one page of it
 * (`pageSize`), both prepared (frozen, JSON preset). A raw list handler
 * written beside the definitions adds its items after the defined ones (on
 * the last page when paging), minus any that a definition already names.
 */
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import type { Catalog, CatalogEntry } from './catalog.js'
import { isThenable } from '../common/maybe-promise.js'

export type RawList = (params: JsonObject, ctx: HandlerContext) => unknown

export function serveList (
  catalog: Catalog<CatalogEntry>,
  view: string,
  key: 'name' | 'uri' | 'uriTemplate',
  params: JsonObject | undefined,
  ctx: HandlerContext | undefined,
  pageSize: number | undefined,
  raw: RawList | undefined,
  /** Extra items made per request (resource templates' `list`), after the defined ones. */
  extra?: (ctx: HandlerContext) => unknown[] | Promise<unknown[]>
): object | Promise<object> {
  const defined = pageSize === undefined ? catalog.list(view) : catalog.page(view, params?.cursor, pageSize)
  if ((raw === undefined && extra === undefined) || (defined as { nextCursor?: unknown }).nextCursor !== undefined) return defined
  const { cursor: _cursor, ...rest } = params ?? {}
  const more: Array<unknown[] | Promise<unknown[]>> = []
  if (extra !== undefined) more.push(extra(ctx as HandlerContext))
  let rawResult: unknown
  if (raw !== undefined) {
    rawResult = raw(rest, ctx as HandlerContext)
    more.push(isThenable(rawResult)
      ? Promise.resolve(rawResult).then((value) => { rawResult = value; return itemsOf(value, view) })
      : itemsOf(rawResult, view))
  }
  const merge = (lists: unknown[][]): object => {
    const items: unknown[] = [...(defined as Record<string, unknown[]>)[view] as unknown[]]
    for (const list of lists) {
      for (const item of list) {
        const id = item !== null && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined
        // A hand-listed item a definition already names (even a disabled one) is the definition's.
        if (typeof id === 'string' && (key === 'name' ? catalog.has(id) : catalog.hasKey(id))) continue
        items.push(item)
      }
    }
    const base = rawResult !== null && typeof rawResult === 'object' ? rawResult as Record<string, unknown> : {}
    const { nextCursor: _next, ...fields } = base
    return { ...fields, [view]: items }
  }
  return more.some(isThenable)
    ? Promise.all(more).then(merge)
    : merge(more as unknown[][])
}

function itemsOf (result: unknown, view: string): unknown[] {
  const items = result !== null && typeof result === 'object' ? (result as Record<string, unknown>)[view] : undefined
  return Array.isArray(items) ? items : []
}
