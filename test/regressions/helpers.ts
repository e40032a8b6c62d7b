/**
 * Helpers for the hostile-review regression tests (issue 11): a real
 * garbage collector in the test process (no --expose-gc needed), a heap
 * figure that counts what JavaScript and Buffers hold, and hostile bodies.
 * (Raw HTTP over a socket the test owns: `rawPost` in test/helpers/mcp-inject.ts.)
 */
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
