/**
 * What a parsed request value costs in heap, estimated from its shape.
 *
 * A task's work usually keeps its arguments (its closure holds them) for up
 * to `ttlMs`, so the bound on what a task may keep must be on memory, not on
 * JSON characters: `[{},{},…]` is 3 characters per object on the wire and
 * ~50 bytes per object once parsed (issue 26: 64 KiB of it held ~1.3 MB).
 * The figures are V8's on 64-bit without pointer compression (Node's
 * default), rounded up, so the estimate is at least what the value holds:
 * a value slot is 8 bytes in its container, an object a header plus its
 * properties (a key may be a string of its own), an array a header plus a
 * slot per element, a string a header plus its characters (two bytes each
 * when any is outside Latin-1), a number outside the small integers a heap
 * number. The walk stops as soon as the limit is passed, and uses its own
 * stack: the cost is at most the size of what fits, whatever was sent.
 */

/** Per object: header, hidden-class share and a few in-object slots. */
const OBJECT_BYTES = 64
/** Per property: its value slot and descriptor, plus its key (a string of its own when new). */
const PROPERTY_BYTES = 16
/** Per array: the array and its backing store's headers. */
const ARRAY_BYTES = 48
/** Per element: its slot. */
const SLOT_BYTES = 8
/** Per string: its header. */
const STRING_BYTES = 24
/** A number that is not a small integer is a boxed double. */
const HEAP_NUMBER_BYTES = 16
const SMALL_INTEGER = 2 ** 30

const TWO_BYTE = /[^\u0000-\u00ff]/

/**
 * The most any character of JSON text can cost once parsed (`[[[…]]]`: two
 * characters per array): a body this many times smaller than a limit fits
 * it without a walk.
 */
export const MAX_COST_PER_CHARACTER = 32

function stringCost (text: string): number {
  return STRING_BYTES + (TWO_BYTE.test(text) ? 2 : 1) * text.length
}

/**
 * The estimated heap bytes of `value` (a parsed JSON value) when at most
 * `limit`, else undefined. Values JSON cannot hold (functions, symbols)
 * cost nothing here; a request's parsed body has none.
 */
export function heapCostWithin (value: unknown, limit: number): number | undefined {
  let total = 0
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    switch (typeof item) {
      case 'string':
        total += stringCost(item)
        break
      case 'number':
        if (!Number.isInteger(item) || Math.abs(item) >= SMALL_INTEGER) total += HEAP_NUMBER_BYTES
        break
      case 'object':
        if (item === null) break
        if (Array.isArray(item)) {
          total += ARRAY_BYTES + SLOT_BYTES * item.length
          if (total > limit) return undefined
          for (let i = 0; i < item.length; i++) pending.push(item[i])
        } else {
          total += OBJECT_BYTES
          for (const key in item) {
            if (!Object.hasOwn(item, key)) continue
            total += PROPERTY_BYTES + stringCost(key)
            if (total > limit) return undefined
            pending.push((item as Record<string, unknown>)[key])
          }
        }
        break
    }
    if (total > limit) return undefined
  }
  return total
}
