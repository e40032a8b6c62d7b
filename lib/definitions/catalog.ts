/**
 * A catalogue of definitions (tools, prompts or resources) that can change
 * while the server runs: ordered, unique by name (and by URI or URI template),
 * each entry enabled or disabled.
 *
 * Lists are prepared lazily and incrementally: every entry carries the JSON
 * text of its listed item, made once when it was defined, and the entries
 * are kept in segments of at most 256 (catalog-segment.ts), each keeping its
 * part of every list (items and UTF-8 bytes) until one of its entries
 * changes. A change thus costs the rebuild of one segment; the whole list is
 * then the segments' parts side by side, its bytes preset on the frozen list
 * object (response/frozen-json.ts), so the endpoint copies them behind the
 * response's id and never serialises or encodes the whole list again.
 *
 * Pages: each entry gets a sequence number when added (kept when it is
 * replaced); a cursor names the last sequence number served, and the next
 * page starts after it. Items added between pages come on a later page,
 * removed ones are simply gone: no item is skipped or repeated. A page is
 * found from its cursor by binary search, so its cost does not grow with the
 * catalogue. Cursors are sealed (cursor-seal.ts): only one this catalogue's
 * seal issued names a page, so a client cannot make the server prepare
 * pages of its choosing, and the pages kept are bounded in bytes.
 */
import { firstNotBefore } from '../common/binary-search.js'
import { FST_MCP_DUPLICATE_DEFINITION } from '../errors.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { presetJson, presetJsonBytes } from '../response/frozen-json.js'
import { type ListedEntry, Segment, SEGMENT_SIZE, type Slot } from './catalog-segment.js'
import { CursorSeal } from './cursor-seal.js'

export interface CatalogEntry extends ListedEntry {
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

/** What is derived from a view as of one version of the catalogue (made on demand, dropped on a change). */
interface ViewState<E> {
  list: object | undefined
  enabled: readonly E[] | undefined
  /** Pages by the sequence number they start after (0: the first), oldest first. */
  readonly pages: Map<number, KeptPage>
  /** What the kept pages hold, estimated in bytes. */
  pageBytes: number
}

interface KeptPage {
  readonly page: object
  readonly bytes: number
}

/**
 * Prepared pages kept per view and version, in bytes: a client paging
 * through 10,000 tools of 1 KiB needs ~10 MiB; a page larger than this alone
 * is made for each request instead of kept.
 */
export const MAX_KEPT_PAGE_BYTES = 16 * 1024 * 1024
const COMMA = Buffer.from(',')
const CLOSE = Buffer.from(']}')
/** `{"tools":[` and the like, per view name. */
const opening = new Map<string, Buffer>()

export class Catalog<E extends CatalogEntry> {
  /** `tool`, `prompt` or `resource`: how errors name an entry. */
  readonly kind: string
  readonly #byName = new Map<string, Slot<E>>()
  readonly #byKey = new Map<string, Slot<E>>()
  /** Slots in sequence order, in segments (appended, never reordered; an empty segment is dropped). */
  readonly #segments: Array<Segment<E>> = []
  #seq = 0
  #version = 0
  readonly #views = new Map<string, ViewState<E>>()
  readonly #seal: CursorSeal

  /** `seal`: what cursors are sealed with (by default a key of this process: cursors open only here). */
  constructor (kind: string, seal: CursorSeal = new CursorSeal()) {
    this.kind = kind
    this.#seal = seal
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
    let last = this.#segments[this.#segments.length - 1]
    if (last === undefined || last.slots.length >= SEGMENT_SIZE) {
      last = new Segment<E>()
      this.#segments.push(last)
    }
    last.slots.push(slot)
    this.#changed(last)
  }

  /** Replaces the entry named `entry.name` in place (same position, same enabled state). */
  replace (entry: E): E {
    const slot = this.#byName.get(entry.name) as Slot<E>
    this.#checkUnique(entry, slot)
    const before = slot.entry
    if (before.key !== undefined) this.#byKey.delete(before.key)
    slot.entry = entry
    if (entry.key !== undefined) this.#byKey.set(entry.key, slot)
    this.#changed(this.#segments[this.#segmentOf(slot.seq)] as Segment<E>)
    return before
  }

  remove (name: string): E | undefined {
    const slot = this.#byName.get(name)
    if (slot === undefined) return undefined
    this.#byName.delete(name)
    if (slot.entry.key !== undefined) this.#byKey.delete(slot.entry.key)
    const at = this.#segmentOf(slot.seq)
    const segment = this.#segments[at] as Segment<E>
    segment.slots.splice(segment.indexOf(slot.seq), 1)
    this.#changed(segment)
    if (segment.slots.length === 0) {
      this.#segments.splice(at, 1)
    } else if (segment.slots.length < SEGMENT_SIZE / 4) {
      // A segment thinned by removals joins its successor when both fit in one, so their count stays bounded.
      const next = this.#segments[at + 1]
      if (next !== undefined && segment.slots.length + next.slots.length <= SEGMENT_SIZE) {
        segment.slots.push(...next.slots)
        this.#segments.splice(at + 1, 1)
      }
    }
    return slot.entry
  }

  /** Enables or disables `name`; true when that changed anything. */
  setEnabled (name: string, enabled: boolean): boolean {
    const slot = this.#byName.get(name)
    if (slot === undefined || slot.enabled === enabled) return false
    slot.enabled = enabled
    this.#changed(this.#segments[this.#segmentOf(slot.seq)] as Segment<E>)
    return true
  }

  /** The enabled entries listed in `view`, in order. */
  enabled (view: string): readonly E[] {
    const state = this.#state(view)
    if (state.enabled === undefined) {
      const entries: E[] = []
      for (const segment of this.#segments) {
        for (const entry of segment.view(view).entries) entries.push(entry)
      }
      state.enabled = entries
    }
    return state.enabled
  }

  /** The whole list result of `view` (`{ tools: [...] }`), frozen, its JSON bytes preset. */
  list (view: string): object {
    const state = this.#state(view)
    state.list ??= this.#wholeList(view)
    return state.list
  }

  /**
   * One page of `view`: at most `size` items after `cursor` (from the start
   * without one), with `nextCursor` when more follow. A cursor this catalogue
   * did not make for this view answers -32602.
   */
  page (view: string, cursor: unknown, size: number): object {
    const after = cursor === undefined ? 0 : this.#seal.open(cursor, view)
    if (after === undefined) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: unknown cursor (start again without one)')
    const state = this.#state(view)
    const kept = state.pages.get(after)
    if (kept !== undefined) return kept.page
    const [page, bytes] = this.#page(view, after, size)
    if (bytes <= MAX_KEPT_PAGE_BYTES) {
      // The oldest pages make room (a Map iterates in insertion order).
      for (const [seq, old] of state.pages) {
        if (state.pageBytes + bytes <= MAX_KEPT_PAGE_BYTES) break
        state.pages.delete(seq)
        state.pageBytes -= old.bytes
      }
      state.pages.set(after, { page, bytes })
      state.pageBytes += bytes
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

  /** Everything derived is dropped; of the segments, only the one that changed. */
  #changed (segment: Segment<E>): void {
    segment.changed()
    this.#version++
    this.#views.clear()
  }

  #state (view: string): ViewState<E> {
    let state = this.#views.get(view)
    if (state === undefined) {
      state = { list: undefined, enabled: undefined, pages: new Map(), pageBytes: 0 }
      this.#views.set(view, state)
    }
    return state
  }

  /** Index of the first segment whose last sequence number is >= `seq` (the one holding `seq`, when some does). */
  #segmentOf (seq: number): number {
    return firstNotBefore(this.#segments.length, (i) => (this.#segments[i] as Segment<E>).lastSeq < seq)
  }

  /** The segments' items and bytes side by side: no item is serialised or encoded again. */
  #wholeList (view: string): object {
    const parts: Buffer[] = []
    let count = 0
    for (const segment of this.#segments) {
      const part = segment.view(view)
      if (part.entries.length === 0) continue
      if (count > 0) parts.push(COMMA)
      parts.push(part.bytes)
      count += part.entries.length
    }
    const items: object[] = new Array(count)
    let at = 0
    for (const segment of this.#segments) {
      for (const item of segment.view(view).items) items[at++] = item
    }
    let open = opening.get(view)
    if (open === undefined) {
      open = Buffer.from('{' + JSON.stringify(view) + ':[')
      opening.set(view, open)
    }
    Object.freeze(items)
    return presetJsonBytes({ [view]: items }, [open, ...parts, CLOSE])
  }

  /** At most `size` items after sequence number `after`, found by binary search, then walked forward; with its size in bytes. */
  #page (view: string, after: number, size: number): [object, number] {
    const items: object[] = []
    const texts: string[] = []
    let lastSeq = 0
    let more = false
    for (let s = this.#segmentOf(after + 1); s < this.#segments.length && !more; s++) {
      const part = (this.#segments[s] as Segment<E>).view(view)
      for (let i = upperBound(part.seqs, after); i < part.entries.length; i++) {
        if (items.length === size) {
          more = true
          break
        }
        items.push(part.items[i] as object)
        texts.push((part.entries[i] as E).json)
        lastSeq = part.seqs[i] as number
      }
    }
    Object.freeze(items)
    const result: Record<string, unknown> = { [view]: items }
    let json = '{' + JSON.stringify(view) + ':[' + texts.join(',') + ']'
    if (more) {
      const nextCursor = this.#seal.seal(view, lastSeq)
      result.nextCursor = nextCursor
      json += ',"nextCursor":' + JSON.stringify(nextCursor)
    }
    json += '}'
    // The text (two bytes a character unless all Latin-1, as V8 keeps it), the items' references, the objects.
    const bytes = json.length * (BEYOND_LATIN1.test(json) ? 2 : 1) + items.length * 8 + 256
    return [presetJson(result, json), bytes]
  }
}

/** First index whose seq is > seq. */
function upperBound (seqs: readonly number[], seq: number): number {
  return firstNotBefore(seqs.length, (i) => (seqs[i] as number) <= seq)
}

const BEYOND_LATIN1 = /[^\u0000-\u00ff]/
