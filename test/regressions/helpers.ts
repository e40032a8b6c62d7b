/**
 * Helpers for the hostile-review regression tests (issue 11): a real
 * garbage collector in the test process (no --expose-gc needed), a heap
 * figure that counts what JavaScript and Buffers hold, and raw HTTP over a
 * socket the test owns.
 */
import http, { type IncomingMessage } from 'node:http'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

setFlagsFromString('--expose-gc')
const collect = runInNewContext('gc') as (options?: unknown) => void

/** Full collections until the heap settles (weak maps and finalisers need more than one). */
export async function settle (): Promise<void> {
  for (let i = 0; i < 4; i++) {
    collect()
    // Freed ArrayBuffers are released by a concurrent sweeper: give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

/** Bytes held by JavaScript objects and by Buffers (a socket's queued output may be either). */
export function heldBytes (): number {
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.arrayBuffers
}

/** `held` after a full collection. */
export async function settledBytes (): Promise<number> {
  await settle()
  return heldBytes()
}

export const MB = 1024 * 1024

/** A JSON array of `count` empty objects: few bytes on the wire, many objects once parsed. */
export function objectHeavyJson (bytes: number): string {
  const count = Math.floor((bytes - 2) / 3)
  return '[' + '{},'.repeat(count - 1) + '{}]'
}

/** A value nested `depth` arrays deep, as JSON text (parsing it is fine; recursing over it is not). */
export function deepJson (depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth)
}

export interface RawReply {
  status: number
  headers: IncomingMessage['headers']
  body: string
}

/** One POST over a real connection (TCP port or Unix socket), the whole response read. */
export function rawPost (target: { port?: number, socketPath?: string }, headers: Record<string, string>, body: string, path = '/mcp'): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', ...target, path, method: 'POST', agent: false, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.setTimeout(10_000, () => req.destroy(new Error('request timed out')))
    req.end(body)
  })
}
