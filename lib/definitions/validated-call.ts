/**
 * The steps of a defined tool's or prompt's call once its arguments were
 * checked: an invalid set is refused; a valid one passes the preHandler hooks
 * (`afterValidation`, lib/hooks/pre-handler.ts), then the handler runs. A
 * raw handler beside the definitions validates nothing: the hooks run right
 * before it. Synchronous while the validator, the hooks and the handler are
 * (no promise, no microtask hop). Here rather than beside `afterValidation`
 * because it knows `Invalid`, which lib/hooks/ may not import.
 */
import { isThenable } from '../common/maybe-promise.js'
import { afterValidation } from '../hooks/pre-handler.js'
import type { JsonObject } from '../server-module/contract.js'
import { isPlainObject } from './plain.js'
import { Invalid } from './validation.js'

/** `verdict`: what the validator answered (now, or promised). */
export function callValidated<R> (ctx: object, verdict: unknown, refuse: (invalid: Invalid) => R, handle: (args: JsonObject) => R): R | Promise<R> {
  const go = (settled: unknown): R => settled instanceof Invalid ? refuse(settled) : afterValidation(ctx, settled as JsonObject, handle) as R
  return isThenable(verdict) ? Promise.resolve(verdict).then(go) : go(verdict)
}

/** Calls a raw handler with `params`, or with its `arguments` as the hooks changed them. */
export function callRaw<P extends { arguments?: unknown }, R> (ctx: object, params: P, raw: (params: P) => R): R {
  const given = isPlainObject(params.arguments) ? params.arguments as JsonObject : {}
  return afterValidation(ctx, given, (args) => raw(args === given ? params : { ...params, arguments: args })) as R
}
