/**
 * JSON text of handler results, computed once for results that cannot
 * change: deeply frozen plain data (say, a static tool list returned by
 * `listTools`) is serialised the first time it is returned and reused after.
 * Anything else is serialised afresh, so a mutable result is never stale.
 */

const serialised = new WeakMap<object, string>()
const notCacheable = new WeakSet<object>()

/** Frozen all the way down, with no getters or toJSON that could vary the text. */
export function isFrozenData (value: unknown, seen: Set<object>): boolean {
  if (value === null || typeof value !== 'object') return typeof value !== 'function'
  if (!Object.isFrozen(value)) return false
  if (seen.has(value)) return true
  seen.add(value)
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
  const descriptors = Object.getOwnPropertyDescriptors(value)
  for (const key of Object.keys(descriptors)) {
    const descriptor = descriptors[key] as PropertyDescriptor
    if (descriptor.get !== undefined || descriptor.set !== undefined) return false
    if (!isFrozenData(descriptor.value, seen)) return false
  }
  return true
}

export function jsonOf (value: object): string {
  if (!Object.isFrozen(value) || notCacheable.has(value)) return JSON.stringify(value)
  let json = serialised.get(value)
  if (json === undefined) {
    json = JSON.stringify(value)
    if (isFrozenData(value, new Set())) serialised.set(value, json)
    else notCacheable.add(value)
  }
  return json
}
