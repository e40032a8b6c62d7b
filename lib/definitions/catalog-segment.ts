/**
 * A run of consecutive catalogue entries (at most SEGMENT_SIZE), with what
 * each view lists from it made on demand and kept until one of its entries
 * changes: the enabled entries, their sequence numbers, their listed items
 * and those items' JSON texts joined by commas, as UTF-8 bytes. A change to a
 * catalogue of 10,000 entries thus rebuilds one segment of at most 256, and
 * the whole list is the segments' bytes side by side (catalog.ts).
 */
import { firstNotBefore } from '../common/binary-search.js'

/** What a segment reads of an entry (catalog.ts's CatalogEntry has it). */
export interface ListedEntry {
  readonly listed: object
  readonly json: string
  readonly view: string
}

/** Small enough that rebuilding one segment costs well under a millisecond, large enough that a list is a few dozen parts. */
export const SEGMENT_SIZE = 256

export interface Slot<E> {
  readonly seq: number
  entry: E
  enabled: boolean
}

/** What one view lists from one segment. */
export interface SegmentView<E> {
  readonly entries: readonly E[]
  readonly seqs: readonly number[]
  readonly items: readonly object[]
  /** The items' JSON texts joined by `,` (empty when the view has none here). */
  readonly bytes: Buffer
}

const EMPTY = Buffer.alloc(0)

export class Segment<E extends ListedEntry> {
  /** In sequence order. */
  readonly slots: Array<Slot<E>>
  #views: Map<string, SegmentView<E>> | undefined

  constructor (slots: Array<Slot<E>> = []) {
    this.slots = slots
  }

  get lastSeq (): number {
    return (this.slots[this.slots.length - 1] as Slot<E>).seq
  }

  /** Forgets what the views listed here: called on every change to one of its slots. */
  changed (): void {
    this.#views = undefined
  }

  /** Index of the slot with sequence number `seq` (or where it would be). */
  indexOf (seq: number): number {
    return firstNotBefore(this.slots.length, (i) => (this.slots[i] as Slot<E>).seq < seq)
  }

  view (view: string): SegmentView<E> {
    this.#views ??= new Map()
    let made = this.#views.get(view)
    if (made === undefined) {
      const entries: E[] = []
      const seqs: number[] = []
      const items: object[] = []
      const texts: string[] = []
      for (const slot of this.slots) {
        if (!slot.enabled || slot.entry.view !== view) continue
        entries.push(slot.entry)
        seqs.push(slot.seq)
        items.push(slot.entry.listed)
        texts.push(slot.entry.json)
      }
      made = { entries, seqs, items, bytes: texts.length === 0 ? EMPTY : Buffer.from(texts.join(',')) }
      this.#views.set(view, made)
    }
    return made
  }
}
