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
