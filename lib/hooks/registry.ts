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
 * shares it) run for every MCP request. A route-backed tool belongs to the
 * context its route was declared in: hooks added in that context (or one
 * between it and the endpoint's) run for the calls of that tool too. As with
 * Fastify's hooks, an outer context's hooks run before an inner one's, and a
 * context's own in the order added.
 */
import type { FastifyInstance } from 'fastify'
import { FST_MCP_INVALID_HOOK } from '../errors.js'
import type { JsonObject } from '../server-module/contract.js'
import { METHODS, targetOf } from '../protocol/methods.js'
import type { McpHookName, McpHooks } from './types.js'

const NAMES: readonly McpHookName[] = Object.freeze(['onRequest', 'preHandler', 'onResult', 'onError'])

/**
 * The hooks that apply to one request: those of the context serving what it
 * acts on (a route-backed tool's route context, else the endpoint's); undefined when none does.
 */
export type HookSelector = (method: string, params: JsonObject) => HookChains | undefined

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

/** How many contexts `context` is made inside (each child context is an `Object.create` of its parent). */
function depthOf (context: object): number {
  let depth = 0
  for (let at = Object.getPrototypeOf(context); at !== null; at = Object.getPrototypeOf(at)) depth++
  return depth
}

export class HookRegistry {
  readonly #entries: Entry[] = []
  readonly #chains = new Map<FastifyInstance, HookChains | undefined>()
  #ready = false

  add<N extends McpHookName> (context: FastifyInstance, name: N, fn: McpHooks[N]): void {
    if (typeof name !== 'string' || !(NAMES as readonly string[]).includes(name)) {
      throw new FST_MCP_INVALID_HOOK(String(name), `expected one of ${NAMES.join(', ')}`)
    }
    if (typeof fn !== 'function') throw new FST_MCP_INVALID_HOOK(name, 'the hook must be a function')
    if (this.#ready) throw new FST_MCP_INVALID_HOOK(name, 'hooks cannot be added once the app is ready')
    this.#entries.push({ name, hook: { fn, context } as BoundHook<McpHookName> })
  }

  /** No hook can be added from now on. */
  seal (): void {
    this.#ready = true
  }

  /** The contexts hooks were added in, other than `endpoint`, that serve nothing of `served` (their hooks would never run). */
  idleContexts (endpoint: FastifyInstance, served: Iterable<FastifyInstance>): FastifyInstance[] {
    const servedList = [...served]
    const idle = new Set<FastifyInstance>()
    for (const { hook } of this.#entries) {
      if (hook.context !== endpoint && !servedList.some((context) => isWithin(context, hook.context))) idle.add(hook.context)
    }
    return [...idle]
  }

  /** Whether some hook was added in a context other than `endpoint`. */
  hasScoped (endpoint: FastifyInstance): boolean {
    return this.#entries.some(({ hook }) => hook.context !== endpoint)
  }

  /** The hooks that apply to what `context` serves, in the order added (made once per context); undefined when none does. */
  chainsFor (context: FastifyInstance): HookChains | undefined {
    if (this.#chains.has(context)) return this.#chains.get(context)
    const chains = this.#compile(context)
    this.#chains.set(context, chains)
    return chains
  }

  #compile (context: FastifyInstance): HookChains | undefined {
    const applying = this.#entries.filter(({ hook }) => isWithin(context, hook.context))
    if (applying.length === 0) return undefined
    // Outer contexts first (a stable sort keeps each context's own order).
    const depths = new Map(applying.map(({ hook }) => [hook.context, depthOf(hook.context)]))
    applying.sort((a, b) => (depths.get(a.hook.context) as number) - (depths.get(b.hook.context) as number))
    const chains: Partial<Record<McpHookName, Array<BoundHook<McpHookName>>>> = {}
    for (const { name, hook } of applying) (chains[name] ??= []).push(hook)
    return Object.freeze(chains) as HookChains
  }

  /**
   * Seals the registry and settles which hooks each request gets: the
   * endpoint's, or for `tools/call` of a tool served from another context
   * (`contextOfTool`), that context's. Undefined when no hook was added.
   */
  settle (endpoint: FastifyInstance, contextOfTool: (name: string) => FastifyInstance | undefined): HookSelector | undefined {
    this.seal()
    if (this.#entries.length === 0) return undefined
    const own = this.chainsFor(endpoint)
    if (!this.hasScoped(endpoint)) return () => own
    return (method, params) => {
      const entry = METHODS[method]
      const name = entry?.target?.kind === 'tool' ? targetOf(entry, params) : undefined
      const context = name === undefined ? undefined : contextOfTool(name)
      return context === undefined ? own : this.chainsFor(context)
    }
  }
}
