/**
 * While the app is served over stdio, stdout carries MCP messages and
 * nothing else (a stray line there breaks the host's parser). What other
 * code writes through `process.stdout.write` (`console.log`, a logger whose
 * stream is `process.stdout`) goes to stderr instead; the transport keeps
 * the original write for itself. A logger that writes to file descriptor 1
 * directly (pino's default destination, which `Fastify({ logger: true })`
 * uses) cannot be redirected from here: `serveStdio` refuses it and names
 * the fix.
 */
import type { FastifyBaseLogger } from 'fastify'

export interface StdoutGuard {
  /** Writes to the real stdout. */
  readonly write: (line: string) => boolean
  /** Gives `process.stdout.write` back. */
  release (): void
}

/** Sends what is written through `stdout.write` to `stderr`, and returns the original write. */
export function guardStdout (stdout: NodeJS.WriteStream, stderr: NodeJS.WriteStream): StdoutGuard {
  const own = Object.getOwnPropertyDescriptor(stdout, 'write')
  const original = stdout.write
  const write = (line: string): boolean => original.call(stdout, line)
  const redirected = function write (this: unknown, ...args: unknown[]): boolean {
    return (stderr.write as (...a: unknown[]) => boolean)(...args)
  }
  stdout.write = redirected as typeof stdout.write
  return {
    write,
    release () {
      // Only our redirect is undone: someone who replaced it since keeps theirs.
      if (stdout.write !== redirected) return
      if (own === undefined) delete (stdout as { write?: unknown }).write
      else Object.defineProperty(stdout, 'write', own)
    }
  }
}

/** pino keeps its destination under a symbol of its own (`pino.stream`), found by name: pino is Fastify's, not ours. */
function loggerStream (log: object): unknown {
  for (let o: object | null = log; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    for (const symbol of Object.getOwnPropertySymbols(o)) {
      if (symbol.description === 'pino.stream') return (log as Record<symbol, unknown>)[symbol]
    }
  }
  return undefined
}

/** True when the app's logger writes to file descriptor 1 directly (not through `process.stdout.write`). */
export function loggerWritesToFd1 (log: FastifyBaseLogger, stdout: NodeJS.WriteStream): boolean {
  const stream = loggerStream(log)
  if (stream === undefined || stream === null || stream === stdout) return false
  return (stream as { fd?: unknown }).fd === 1
}
