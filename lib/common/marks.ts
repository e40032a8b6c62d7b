/**
 * Marks on objects the package hands out (a `toolError` result, the
 * `CreateTaskResult` of `runAsTask`): a non-enumerable symbol property, so
 * the object serialises as it is and a copy (a spread, JSON) loses it. Only
 * what the package made carries the mark; nothing a client sends or a
 * handler builds can.
 */

/** Marks `value` with `key`; returns it. */
export function mark<T extends object> (value: T, key: symbol): T {
  Object.defineProperty(value, key, { value: true, enumerable: false })
  return value
}

/** True when `value` was marked with `key`. */
export function hasMark (value: unknown, key: symbol): boolean {
  return value !== null && typeof value === 'object' && (value as Record<symbol, unknown>)[key] === true
}
