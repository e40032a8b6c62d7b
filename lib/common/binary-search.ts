/**
 * Binary search over anything sorted: the first index in `[0, length)` at
 * which `before(index)` is false, where `before` holds for a prefix of the
 * indexes and not after it (`length` when it holds for all).
 */
export function firstNotBefore (length: number, before: (index: number) => boolean): number {
  let lo = 0
  let hi = length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(mid)) lo = mid + 1
    else hi = mid
  }
  return lo
}
