/**
 * How many JSON values a parsed value holds, counted only up to a limit.
 *
 * What a schema library spends on a value grows with its values (array
 * items, properties), not its bytes: a 1 MiB string is one value, a 1 MiB
 * array of zeros half a million. The walk stops as soon as the limit is
 * passed (an array adds its length before any item is visited) and uses its
 * own stack, so it costs at most `limit` steps whatever was sent.
 */

/**
 * The values `value` holds (itself, every array item and property value,
 * nested) when at most `limit`, else undefined.
 */
export function valueCountWithin (value: unknown, limit: number): number | undefined {
  let count = 1
  if (count > limit) return undefined
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const item = pending.pop()
    if (item === null || typeof item !== 'object') continue
    if (Array.isArray(item)) {
      count += item.length
      if (count > limit) return undefined
      for (let i = 0; i < item.length; i++) {
        const element: unknown = item[i]
        if (element !== null && typeof element === 'object') pending.push(element)
      }
    } else {
      for (const key in item) {
        if (!Object.hasOwn(item, key)) continue
        if (++count > limit) return undefined
        const element = (item as Record<string, unknown>)[key]
        if (element !== null && typeof element === 'object') pending.push(element)
      }
    }
  }
  return count
}
