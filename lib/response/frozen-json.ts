/**
 * JSON text of handler results, computed once for results that cannot
 * change: deeply frozen plain data (say, a static tool list returned by
 * `listTools`) is serialised the first time it is returned and reused after.
 * Anything else is serialised afresh, so a mutable result is never stale.
 */

const immutable = new WeakSet<object>()
const mutable = new WeakSet<object>()
const serialised = new WeakMap<object, string>()
const encoded = new WeakMap<object, readonly Buffer[]>()

/** Frozen all the way down, with no getters or toJSON that could vary the text. */
function isFrozenData (value: unknown, seen: Set<object>): boolean {
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

/** True for deeply frozen plain data; the answer is remembered per object (freezing cannot be undone). */
export function isImmutableData (value: object): boolean {
  if (!Object.isFrozen(value) || mutable.has(value)) return false
  if (immutable.has(value)) return true
  const frozen = isFrozenData(value, new Set())
  if (frozen) immutable.add(value)
  else mutable.add(value)
  return frozen
}

/** `compute()` once per immutable `value` (kept in `cache`); every time for anything else. */
export function memoizeImmutable<T> (cache: WeakMap<object, T>, value: object, compute: (value: object) => T): T {
  if (!isImmutableData(value)) return compute(value)
  let known = cache.get(value)
  if (known === undefined) {
    known = compute(value)
    cache.set(value, known)
  }
  return known
}

// A value whose bytes are preset is decoded from them rather than walked (only a path that needs the text does).
const stringify = (value: object): string => {
  const parts = encoded.get(value)
  return parts === undefined ? JSON.stringify(value) : Buffer.concat(parts).toString('utf8')
}

export function jsonOf (value: object): string {
  // Only frozen values are ever remembered or preset: a fresh one (most results) goes straight to JSON.stringify.
  return Object.isFrozen(value) ? memoizeImmutable(serialised, value, stringify) : JSON.stringify(value)
}

/**
 * Records the JSON text of a deeply frozen value built from parts whose text
 * is already known (a definition catalogue's list): serving it then costs
 * neither a walk of the value nor a JSON.stringify of it.
 */
export function presetJson<T extends object> (value: T, json: string): T {
  Object.freeze(value)
  immutable.add(value)
  serialised.set(value, json)
  return value
}

/**
 * Records the UTF-8 bytes of a deeply frozen value's JSON text, in parts (a
 * definition catalogue's list, segment by segment): the endpoint copies them
 * into the response (response/responses.ts) instead of serialising, joining
 * or encoding the whole value. The text must be a JSON object with at least
 * one member.
 */
export function presetJsonBytes<T extends object> (value: T, parts: readonly Buffer[]): T {
  Object.freeze(value)
  immutable.add(value)
  encoded.set(value, Object.freeze([...parts]))
  return value
}

/** The bytes preset by presetJsonBytes, in parts; undefined for any other value. */
export function jsonBytesOf (value: object): readonly Buffer[] | undefined {
  return encoded.get(value)
}
