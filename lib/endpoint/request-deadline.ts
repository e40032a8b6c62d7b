/**
 * `limits.handlerTimeoutMs` bounds a request from its dispatch, not from
 * the start of its handler: `onRequest` hooks run before the handler, and
 * one waiting on a stuck dependency would otherwise hold the request and
 * its socket forever. The time a request was dispatched is noted here when
 * hooks run before its handler (lib/endpoint/operations.ts); the hooks'
 * wait is bounded by the deadline, and the handler's timer
 * (lib/handler/in-flight.ts) gets only what is left of it.
 */
import type { FastifyRequest } from 'fastify'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'

export const REQUEST_TIMED_OUT = 'Internal error: the request timed out'

const dispatched = new WeakMap<object, number>()

/** Notes that `request` was dispatched now (once: the first note stands). */
export function markDispatched (request: object): void {
  if (!dispatched.has(request)) dispatched.set(request, performance.now())
}

/** When `request` was dispatched (performance.now() time); now when nothing ran before its handler. */
export function dispatchedAt (request: object): number {
  return dispatched.get(request) ?? performance.now()
}

/**
 * Settles as `pending` (the `what` of `request`) does, or rejects with a
 * -32603 `McpError`, logged, once `timeoutMs` passed since `request` was
 * dispatched (`0`: never). What `pending` settles with later is dropped.
 */
export function beforeDeadline<T> (pending: Promise<T>, request: FastifyRequest, timeoutMs: number, what: string): Promise<T> {
  if (timeoutMs <= 0) return pending
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      request.log.warn({ handlerTimeoutMs: timeoutMs }, `MCP ${what} did not settle within limits.handlerTimeoutMs: the request is answered -32603`)
      reject(new McpError(ErrorCode.InternalError, REQUEST_TIMED_OUT))
    }, Math.max(0, dispatchedAt(request) + timeoutMs - performance.now()))
    timer.unref()
    pending.then((value) => {
      clearTimeout(timer)
      resolve(value)
    }, (err: unknown) => {
      clearTimeout(timer)
      reject(err)
    })
  })
}
