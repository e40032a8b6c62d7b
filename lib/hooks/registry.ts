/**
 * Where MCP hooks are kept: `fastify.mcp.addHook(name, fn)` records the hook
 * with the Fastify context it was added in, in the order added. Hooks are
 * fixed once the app is ready (as Fastify's own): the endpoint then compiles
 * the chains that apply to it, and with none the request path runs no hook
 * code at all.
 *
 * Encapsulation, as Fastify's hooks have it: a hook applies to what is served
 * in its context and the contexts below. The endpoint's own handlers (the
 * server module, defined tools) belong to the context the plugin was
 * registered in, so hooks added there (or by an `fp`-wrapped plugin, which
 * shares it) run for every MCP request. Every MCP operation (route-backed
 * tools included) is served from that context today, so a hook added inside
 * a child context, which would apply to nothing, is refused at `addHook`;
 * `chainsFor` already computes the chains of any context for the day
 * something is served from one.
 */
import type { FastifyInstance } from 'fastify'
import { FST_MCP_INVALID_HOOK } from '../errors.js'
import type { McpHookName, McpHooks } from './types.js'

const NAMES: readonly McpHookName[] = Object.freeze(['onRequest', 'preHandler', 'onResult', 'onError'])

/** A hook with the instance it runs as `this`. */
export interface BoundHook<N extends McpHookName> {
  readonly fn: McpHooks[N]
  readonly context: FastifyInstance
}

/** The hooks that apply to one context, by name; a name without hooks is absent. */
export type HookChains = { readonly [N in McpHookName]?: ReadonlyArray<BoundHook<N>> }

interface Entry {
  readonly name: McpHookName
  readonly hook: BoundHook<McpHookName>
}

/** True when `context` is `ancestor` or was made inside it (Fastify makes a child context with `Object.create(parent)`). */
function isWithin (context: FastifyInstance, ancestor: FastifyInstance): boolean {
  return context === ancestor || Object.prototype.isPrototypeOf.call(ancestor, context)
}

export class HookRegistry {
  readonly #entries: Entry[] = []
  #ready = false

  /** `endpoint`: the context the endpoint's handlers belong to; hooks of contexts inside it are refused until something is served there. */
  add<N extends McpHookName> (context: FastifyInstance, name: N, fn: McpHooks[N], endpoint?: FastifyInstance): void {
    if (typeof name !== 'string' || !(NAMES as readonly string[]).includes(name)) {
      throw new FST_MCP_INVALID_HOOK(String(name), `expected one of ${NAMES.join(', ')}`)
    }
    if (typeof fn !== 'function') throw new FST_MCP_INVALID_HOOK(name, 'the hook must be a function')
    if (this.#ready) throw new FST_MCP_INVALID_HOOK(name, 'hooks cannot be added once the app is ready')
    if (endpoint !== undefined && context !== endpoint) {
      // Nothing is served from a child context yet (route-backed tools run in the endpoint's): a hook there would never run.
      throw new FST_MCP_INVALID_HOOK(name, 'added in a child context, where it would apply to nothing the endpoint serves: add it on the instance the plugin was registered on, or in a plugin wrapped with fastify-plugin')
    }
    this.#entries.push({ name, hook: { fn, context } as BoundHook<McpHookName> })
  }

  /** No hook can be added from now on. */
  seal (): void {
    this.#ready = true
  }

  /** The hooks that apply to what `context` serves, in the order added; undefined when none does. */
  chainsFor (context: FastifyInstance): HookChains | undefined {
    const chains: Partial<Record<McpHookName, Array<BoundHook<McpHookName>>>> = {}
    let any = false
    for (const { name, hook } of this.#entries) {
      if (!isWithin(context, hook.context)) continue
      ;(chains[name] ??= []).push(hook)
      any = true
    }
    return any ? Object.freeze(chains) as HookChains : undefined
  }
}
