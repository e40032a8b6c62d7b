/**
 * The options of `serveStdio`, checked when it is called (a bad value
 * throws FST_MCP_INVALID_OPTION naming its path, before anything is read).
 */
import type { Readable, Writable } from 'node:stream'
import { boolean, check, custom, group, integer, record, string } from '../check/option-spec.js'
import { FST_MCP_INVALID_OPTION } from '../errors.js'

/** Client messages in flight before new work waits (open `subscriptions/listen` streams not counted); reading stdin takes as many again (at least 8), then pauses. */
export const DEFAULT_MAX_IN_FLIGHT = 64
/** How long requests in flight may still be answered after stdin ends, before the app closes (and cancels the rest). */
export const DEFAULT_DRAIN_MS = 1000

export interface StdioOptions {
  /** Where messages come from; default `process.stdin`. */
  input?: Readable
  /** Where messages go; default `process.stdout` (then `process.stdout.write` sends everything else to stderr). */
  output?: Writable
  /**
   * HTTP headers every message carries into the endpoint, as a Streamable
   * HTTP client would send them. With the `authorization` option this must
   * hold the local principal's `authorization: 'Bearer ...'`, verified like
   * any other token (docs/stdio.md, Identity).
   */
  headers?: Record<string, string>
  /**
   * Longest message line read, in bytes; a longer one is answered -32600
   * without being held in memory. Default: the endpoint's `limits.bodyLimit`
   * (`fastify.mcp.bodyLimit`), which also applies to what passes.
   */
  maxMessageBytes?: number
  /**
   * Client messages (requests, notifications, answers) in flight before new
   * work waits; default 64. Past it stdin is read for as many again, at
   * least 8 (answers and cancellations go at once, the rest waits its
   * turn), then reading pauses.
   */
  maxInFlight?: number
  /**
   * Milliseconds requests in flight (and those waiting for a slot) may
   * still be answered after stdin ends, before the app is closed (which
   * cancels what is left); default 1000.
   */
  drainMs?: number
  /**
   * Close on SIGINT and SIGTERM (then re-raise the signal); default true
   * when `input` is `process.stdin`.
   */
  handleSignals?: boolean
}

export interface StdioSettings {
  readonly input: Readable
  readonly output: Writable
  readonly headers: Readonly<Record<string, string>>
  /** Undefined: the endpoint's body limit, read once the app is ready. */
  readonly maxMessageBytes: number | undefined
  readonly maxInFlight: number
  readonly drainMs: number
  readonly handleSignals: boolean
}

function isStream (value: unknown, method: 'read' | 'write'): boolean {
  return value !== null && typeof value === 'object' && typeof (value as Record<string, unknown>)[method] === 'function' &&
    typeof (value as Record<string, unknown>).on === 'function'
}

const SPEC = group({
  input: custom('a readable stream', (value, at) => {
    if (value === undefined) return process.stdin as Readable
    if (!isStream(value, 'read')) at.error('expected a readable stream')
    return value as Readable
  }),
  output: custom('a writable stream', (value, at) => {
    if (value === undefined) return process.stdout as Writable
    if (!isStream(value, 'write')) at.error('expected a writable stream')
    return value as Writable
  }),
  headers: record(string({ default: '' })),
  maxMessageBytes: integer({ min: 1, unit: 'bytes' }),
  maxInFlight: integer({ min: 1, max: 10_000, default: DEFAULT_MAX_IN_FLIGHT }),
  drainMs: integer({ min: 0, max: 600_000, unit: 'milliseconds', default: DEFAULT_DRAIN_MS }),
  handleSignals: boolean({})
}, {
  finish: (value): StdioSettings => ({
    ...value,
    headers: Object.fromEntries(Object.entries(value.headers ?? {}).map(([name, v]) => [name.toLowerCase(), v])),
    handleSignals: value.handleSignals ?? value.input === process.stdin
  })
})

export function checkStdioOptions (options: unknown): StdioSettings {
  return check(SPEC, options, '', (path, message) => new FST_MCP_INVALID_OPTION(path === '' ? 'serveStdio options' : `serveStdio options.${path}`, message))
}
