/**
 * The eight syslog severities MCP log messages use (RFC 5424), least to most
 * severe, and the "at or above the requested level" test.
 */

export const LOG_LEVELS = Object.freeze(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const)

export type LogLevel = typeof LOG_LEVELS[number]

const SEVERITY: ReadonlyMap<string, number> = new Map(LOG_LEVELS.map((level, index) => [level, index]))

export function isLogLevel (value: unknown): value is LogLevel {
  return typeof value === 'string' && SEVERITY.has(value)
}

/** True when a message at `level` passes a client that asked for `threshold` and above. */
export function isAtLeast (level: LogLevel, threshold: LogLevel): boolean {
  return (SEVERITY.get(level) as number) >= (SEVERITY.get(threshold) as number)
}
