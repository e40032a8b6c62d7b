/**
 * The stall goal of `npm run bench:hostile` (issue 36): no single request
 * blocks the event loop longer than this at the default limits, measured by
 * a 1 ms heartbeat around the request. Each bench marks its cases against it.
 */
export const STALL_GOAL_MS = 50

/** `met` or `OVER` for a case's longest blocked stretch. */
export function againstGoal (blockedMs: number): string {
  return blockedMs > STALL_GOAL_MS ? 'OVER' : 'met'
}

/**
 * Starts a 1 ms heartbeat; the returned stop gives the longest gap between its
 * ticks (up to the stop), which is the longest the event loop was blocked.
 */
export function startStallMeter (): () => number {
  let last = performance.now()
  let blocked = 0
  const heartbeat = setInterval(() => {
    const now = performance.now()
    blocked = Math.max(blocked, now - last)
    last = now
  }, 1)
  return () => {
    clearInterval(heartbeat)
    return Math.max(blocked, performance.now() - last)
  }
}
