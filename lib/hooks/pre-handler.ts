/**
 * preHandler hooks run after argument validation. A raw handler validates
 * nothing, so the endpoint runs the hooks right before it; a defined tool or
 * prompt (`defineTools`, `definePrompts`) validates its own arguments (the
 * composition says which handlers do: lib/definitions/compose.ts
 * `validatesArguments`), so it runs the hooks itself, between validation and
 * its handler, through the step the endpoint left on the call's `ctx`.
 */
import { type MaybePromise, whenSettled } from '../common/maybe-promise.js'
import type { JsonObject } from '../server-module/contract.js'

/** What the hooks decided: the arguments to call the handler with, or the answer in its place. */
export type PreHandled = { readonly args: JsonObject } | { readonly answer: JsonObject }

type PreHandlerStep = (args: JsonObject) => MaybePromise<PreHandled>

/** The step rides on the call's `ctx` itself: a WeakMap entry per call would cost the collector more. */
const PENDING: unique symbol = Symbol('fastify-mcp-capabilities.preHandler')

interface Carrier { [PENDING]?: PreHandlerStep | undefined }

/** The endpoint leaves the hooks' step for the self-validating handler serving `ctx`. */
export function leavePreHandler (ctx: object, step: PreHandlerStep): void {
  (ctx as Carrier)[PENDING] = step
}

/**
 * In a self-validating handler, once the arguments are valid: runs the
 * preHandler hooks left for this call (if any), then `handle` with the
 * arguments they settled on, or returns their answer.
 */
export function afterValidation<A extends JsonObject, R> (ctx: object, args: A, handle: (args: A) => R): R | MaybePromise<JsonObject> {
  const step = (ctx as Carrier)[PENDING]
  if (step === undefined) return handle(args)
  ;(ctx as Carrier)[PENDING] = undefined
  return whenSettled(step(args), (decided): MaybePromise<JsonObject> => 'answer' in decided ? decided.answer : handle(decided.args as A) as MaybePromise<JsonObject>)
}
