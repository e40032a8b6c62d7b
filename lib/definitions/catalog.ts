/**
 * A catalogue of definitions (tools, prompts or resources) that can change
 * while the server runs: ordered, unique by name (and by URI or URI template),
 * each entry enabled or disabled.
 *
 * Lists are prepared lazily and incrementally: every entry carries the JSON
 * text of its listed item, made once when it was defined, so the list after a
 * change is one join of those texts (no walk or serialisation of the whole
 * catalogue), built on the first list request after the change. The list
 * object is frozen with its text preset (response/frozen-json.ts), so the
 * endpoint serves it as prepared bytes like any static list.
 *
 * Pages: each entry gets a sequence number when added (kept when it is
 * replaced); a cursor names the last sequence number served, and the next
 * page starts after it. Items added between pages come on a later page,
 * removed ones are simply gone: no item is skipped or repeated.
 */
import { FST_MCP_DUPLICATE_DEFINITION } from '../errors.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { presetJson } from '../response/frozen-json.js'

export interface CatalogEntry {
  readonly name: string
  /** The deeply frozen listed item and its JSON text. */
  readonly listed: object
  readonly json: string
  /** The list field it is listed in: `tools`, `prompts`, `resources` or `resourceTemplates`. */
  readonly view: string
  /** A second unique key (a resource's URI or URI template text). */
  readonly key?: string
  /** Where it was defined, for error messages. */
  readonly origin: string
}

interface Slot<E> {
  readonly seq: number
  entry: E
  enabled: boolean
}

/** A view's enabled entries, with their list and pages, as of one version of the catalogue. */
interface ViewState<E> {
  readonly version: number
  readonly entries: readonly E[]
  readonly seqs: readonly number[]
  list: object | undefined
  readonly pages: Map<number, object>
}

/** Pages kept per view and version (a client paging through 10,000 tools at 100 per page needs 100). */
const MAX_KEPT_PAGES = 1024
const MAX_CURSOR_LENGTH = 64

export class Catalog<E extends CatalogEntry> {
  /** `tool`, `prompt` or `resource`: how errors name an entry. */
  readonly kind: string
  readonly #byName = new Map<string, Slot<E>>()
  readonly #byKey = new Map<string, Slot<E>>()
  /** Slots in sequence order (appended, never reordered). */
  #order: Array<Slot<E>> = []
  #seq = 0
  #version = 0
  readonly #views = new Map<string, ViewState<E>>()

  constructor (kind: string) {
    this.kind = kind
  }

  /** Bumped by every change; anything derived from the catalogue is rebuilt when it moves. */
  get version (): number {
    return this.#version
  }

  get size (): number {
    return this.#byName.size
  }

  /** The entry named `name` when it is enabled. */
  get (name: string): E | undefined {
    const slot = this.#byName.get(name)
    return slot !== undefined && slot.enabled ? slot.entry : undefined
  }

  /** The enabled entry whose key (URI or template) is `key`. */
  byKey (key: string): E | undefined {
    const slot = this.#byKey.get(key)
    return slot !== undefined && slot.enabled ? slot.entry : undefined
  }

  /** Whether some entry, enabled or not, has `key`. */
  hasKey (key: string): boolean {
    return this.#byKey.has(key)
  }

  /** Whether `name` is defined here at all, enabled or not. */
  has (name: string): boolean {
    return this.#byName.has(name)
  }

  isEnabled (name: string): boolean {
    return this.#byName.get(name)?.enabled === true
  }

  /** The entry named `name`, enabled or not. */
  entry (name: string): E | undefined {
    return this.#byName.get(name)?.entry
  }

  names (): string[] {
    return [...this.#byName.keys()]
  }

  /** Adds `entry` at the end; a name or key already present fails with both places named. */
  add (entry: E, enabled = true): void {
    this.#checkUnique(entry, undefined)
    const slot: Slot<E> = { seq: ++this.#seq, entry, enabled }
    this.#byName.set(entry.name, slot)
    if (entry.key !== undefined) this.#byKey.set(entry.key, slot)
    this.#order.push(slot)
    this.#changed()
  }

  /** Replaces the entry named `entry.name` in place (same position, same enabled state). */
  replace (entry: E): E {
    const slot = this.#byName.get(entry.name) as Slot<E>
    this.#checkUnique(entry, slot)
    const before = slot.entry
    if (before.key !== undefined) this.#byKey.delete(before.key)
    slot.entry = entry
    if (entry.key !== undefined) this.#byKey.set(entry.key, slot)
    this.#changed()
    return before
  }

  remove (name: string): E | undefined {
    const slot = this.#byName.get(name)
    if (slot === undefined) return undefined
    this.#byName.delete(name)
    if (slot.entry.key !== undefined) this.#byKey.delete(slot.entry.key)
    const at = lowerBound(this.#order, slot.seq)
    this.#order.splice(at, 1)
    this.#changed()
    return slot.entry
  }

  /** Enables or disables `name`; true when that changed anything. */
  setEnabled (name: string, enabled: boolean): boolean {
    const slot = this.#byName.get(name)
    if (slot === undefined || slot.enabled === enabled) return false
    slot.enabled = enabled
    this.#changed()
    return true
  }

  /** The enabled entries listed in `view`, in order. */
  enabled (view: string): readonly E[] {
    return this.#view(view).entries
  }

  /** The whole list result of `view` (`{ tools: [...] }`), frozen, its JSON preset. */
  list (view: string): object {
    const state = this.#view(view)
    state.list ??= listResult(view, state.entries, 0, state.entries.length, undefined)
    return state.list
  }

  /**
   * One page of `view`: at most `size` items after `cursor` (from the start
   * without one), with `nextCursor` when more follow. A cursor this catalogue
   * did not make for this view answers -32602.
   */
  page (view: string, cursor: unknown, size: number): object {
    const state = this.#view(view)
    const start = cursor === undefined ? 0 : upperBound(state.seqs, decodeCursor(cursor, view))
    let page = state.pages.get(start)
    if (page === undefined) {
      const end = Math.min(start + size, state.entries.length)
      const next = end < state.entries.length ? encodeCursor(view, state.seqs[end - 1] as number) : undefined
      page = listResult(view, state.entries, start, end, next)
      if (state.pages.size >= MAX_KEPT_PAGES) state.pages.clear()
      state.pages.set(start, page)
    }
    return page
  }

  #checkUnique (entry: E, own: Slot<E> | undefined): void {
    const named = this.#byName.get(entry.name)
    if (named !== undefined && named !== own) {
      throw new FST_MCP_DUPLICATE_DEFINITION(`${this.kind} "${entry.name}"`, named.entry.origin, entry.origin)
    }
    if (entry.key === undefined) return
    const keyed = this.#byKey.get(entry.key)
    if (keyed !== undefined && keyed !== own) {
      throw new FST_MCP_DUPLICATE_DEFINITION(`${this.kind} "${entry.key}"`, `"${keyed.entry.name}" (${keyed.entry.origin})`, `"${entry.name}" (${entry.origin})`)
    }
  }

  #changed (): void {
    this.#version++
    this.#views.clear()
  }

  #view (view: string): ViewState<E> {
    let state = this.#views.get(view)
    if (state === undefined) {
      const entries: E[] = []
      const seqs: number[] = []
      for (const slot of this.#order) {
        if (!slot.enabled || slot.entry.view !== view) continue
        entries.push(slot.entry)
        seqs.push(slot.seq)
      }
      state = { version: this.#version, entries, seqs, list: undefined, pages: new Map() }
      this.#views.set(view, state)
    }
    return state
  }
}

function listResult (view: string, entries: readonly CatalogEntry[], start: number, end: number, nextCursor: string | undefined): object {
  const items: object[] = new Array(end - start)
  const texts: string[] = new Array(end - start)
  for (let i = start; i < end; i++) {
    const entry = entries[i] as CatalogEntry
    items[i - start] = entry.listed
    texts[i - start] = entry.json
  }
  Object.freeze(items)
  const result: Record<string, unknown> = { [view]: items }
  let json = '{' + JSON.stringify(view) + ':[' + texts.join(',') + ']'
  if (nextCursor !== undefined) {
    result.nextCursor = nextCursor
    json += ',"nextCursor":' + JSON.stringify(nextCursor)
  }
  return presetJson(result, json + '}')
}

/** First index whose slot's seq is >= seq (slots are in seq order). */
function lowerBound (order: ReadonlyArray<Slot<unknown>>, seq: number): number {
  let lo = 0
  let hi = order.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((order[mid] as Slot<unknown>).seq < seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose seq is > seq. */
function upperBound (seqs: readonly number[], seq: number): number {
  let lo = 0
  let hi = seqs.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((seqs[mid] as number) <= seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Opaque to clients: the view and the last sequence number served, base64url. */
export function encodeCursor (view: string, seq: number): string {
  return Buffer.from(view + ':' + seq, 'latin1').toString('base64url')
}

const CURSOR_TEXT = /^([A-Za-z]+):([1-9][0-9]{0,14})$/

function decodeCursor (cursor: unknown, view: string): number {
  if (typeof cursor === 'string' && cursor.length <= MAX_CURSOR_LENGTH) {
    const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
    // Only the exact text this catalogue makes (base64url has several spellings of some bytes).
    if (match !== null && match[1] === view && encodeCursor(view, Number(match[2])) === cursor) return Number(match[2])
  }
  throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown cursor (start again without one)')
}
