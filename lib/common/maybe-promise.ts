/**
 * Values that are either ready now or promised. The endpoint answers
 * synchronous handlers without a promise (no microtask hop before the
 * response), so the steps between a handler and the response apply to
 * whichever they get.
 */

export type MaybePromise<T> = T | Promise<T>

/** True for anything with a `then` method (a handler may return any thenable, not only a native promise). */
export function isThenable (value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function'
}

/** Applies `then` to `value` now, or when it settles (a rejection passes through). */
export function whenSettled<T, U> (value: MaybePromise<T>, then: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(then) : then(value)
}
