/**
 * A hook's exception is the server's fault, whatever the operation: logged,
 * and answered `-32603 Internal error` with nothing of its text (a tool
 * handler's own exception may become a tool error under `toolErrors`; a
 * hook's never does). A hook says what the client should read by throwing an
 * `McpError`, which is answered as thrown. A modern `ctx.elicit()` in a
 * preHandler passes through: the endpoint answers `input_required`.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { MaybePromise } from '../common/maybe-promise.js'
import { InputRequiredSignal } from '../input/client-requests.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'

/** Runs the hooks of `phase` (`run`), turning any exception but an `McpError` into a logged -32603. */
export function hookStep<T> (phase: 'preHandler' | 'onResult', log: FastifyBaseLogger, run: () => MaybePromise<T>): MaybePromise<T> {
  let out: MaybePromise<T>
  try {
    out = run()
  } catch (err) {
    throw hookFault(err, phase, log)
  }
  return out instanceof Promise ? out.catch((err: unknown) => { throw hookFault(err, phase, log) }) : out
}

function hookFault (err: unknown, phase: string, log: FastifyBaseLogger): unknown {
  if (err instanceof McpError || err instanceof InputRequiredSignal) return err
  log.error({ err }, `MCP ${phase} hook failed`)
  return new McpError(ErrorCode.InternalError, 'Internal error')
}
