/**
 * Runs hook chains in order, synchronously while every hook answers
 * synchronously (no promise, no microtask hop), awaiting one that returns a
 * promise before the next starts.
 */
import { isThenable, type MaybePromise } from '../common/maybe-promise.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { JsonObject } from '../server-module/contract.js'
import type { BoundHook } from './registry.js'
import type { McpHookName } from './types.js'

/** What a hook may return: an object (an answer, a replacement) or nothing. */
function checked (value: unknown, name: McpHookName): JsonObject | undefined {
  if (value === undefined || value === null) return undefined
  if (isJsonObject(value)) return value
  throw new TypeError(`MCP ${name} hook returned ${typeof value}: a hook returns a result object or nothing`)
}

/**
 * Runs `hooks` in order until one returns an object, which is the answer;
 * undefined when none does. A hook that throws (or rejects) stops the chain.
 */
export function firstAnswer<N extends McpHookName> (
  name: N, hooks: ReadonlyArray<BoundHook<N>>, call: (hook: BoundHook<N>) => unknown, from = 0
): MaybePromise<JsonObject | undefined> {
  for (let i = from; i < hooks.length; i++) {
    const value = call(hooks[i] as BoundHook<N>)
    if (isThenable(value)) {
      return Promise.resolve(value).then((settled) => checked(settled, name) ?? firstAnswer(name, hooks, call, i + 1))
    }
    const answer = checked(value, name)
    if (answer !== undefined) return answer
  }
  return undefined
}

/** Runs every hook in order, each given the latest value and able to replace it. */
export function replaceEach<N extends McpHookName> (
  name: N, hooks: ReadonlyArray<BoundHook<N>>, value: JsonObject, call: (hook: BoundHook<N>, value: JsonObject) => unknown, from = 0
): MaybePromise<JsonObject> {
  for (let i = from; i < hooks.length; i++) {
    const returned = call(hooks[i] as BoundHook<N>, value)
    if (isThenable(returned)) {
      return Promise.resolve(returned).then((settled) => replaceEach(name, hooks, checked(settled, name) ?? value, call, i + 1))
    }
    value = checked(returned, name) ?? value
  }
  return value
}

/** Runs every hook in order for what it observes; a hook's failure is logged by `report` and does not stop the rest. */
export function observeEach<N extends McpHookName> (
  hooks: ReadonlyArray<BoundHook<N>>, call: (hook: BoundHook<N>) => unknown, report: (err: unknown) => void, from = 0
): MaybePromise<void> {
  for (let i = from; i < hooks.length; i++) {
    let value: unknown
    try {
      value = call(hooks[i] as BoundHook<N>)
    } catch (err) {
      report(err)
      continue
    }
    if (isThenable(value)) {
      return Promise.resolve(value).then(undefined, report).then(() => observeEach(hooks, call, report, i + 1))
    }
  }
  return undefined
}
