/** Handlers may answer synchronously; the define helpers keep such answers synchronous (no promise hop). */
export function isThenable (value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
}
