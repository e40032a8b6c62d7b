// The part of autocannon 8's programmatic API the benchmark uses (it ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events'

  interface Options {
    url: string
    method?: string
    headers?: Record<string, string>
    body?: string
    connections?: number
    pipelining?: number
    duration?: number
    timeout?: number
    expectBody?: string
    excludeErrorStats?: boolean
    /** Sent in turn on every connection, in place of `method`, `headers` and `body` (not with `expectBody`). */
    requests?: Array<{ method?: string, headers?: Record<string, string>, body?: string, onResponse?: (status: number, body: string) => void }>
  }

  interface Histogram { average: number, mean: number, stddev: number, min: number, max: number, total: number, p50: number, p99: number }

  interface Result {
    duration: number
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    resets: number
    statusCodeStats: Record<string, { count: number }>
    requests: Histogram
    latency: Histogram
    throughput: Histogram
  }

  interface Instance extends EventEmitter {
    stop: () => void
  }

  function autocannon (options: Options, callback: (error: Error | null, result: Result) => void): Instance

  export default autocannon
  export type { Options, Result, Instance }
}
