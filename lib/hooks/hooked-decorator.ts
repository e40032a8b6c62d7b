/**
 * `fastify.mcp` as each context sees it: the same frozen decorator, with an
 * `addHook` that adds in that context (the getter's `this`), as
 * `fastify.addHook` does. The plugin's ready sequence (lib/plugin.ts) seals
 * the hooks and settles each request's chains (lib/hooks/registry.ts): the
 * endpoint's, or for a tool served from another context (a route-backed
 * tool), that context's.
 */
import type { FastifyInstance } from 'fastify'
import { HookRegistry, type HookSelector } from './registry.js'
import type { McpHookName, McpHooks } from './types.js'

export interface WithAddHook {
  addHook<N extends McpHookName> (name: N, hook: McpHooks[N]): void
}

/** Where operations are served from besides the endpoint's context (route-backed tools: lib/routes/route-tools.ts). */
export interface ServedContexts {
  /** The context serving the tool `name`, when not the endpoint's. */
  of (name: string): FastifyInstance | undefined
  /** Every such context. */
  all (): Iterable<FastifyInstance>
}

export interface HookedDecorator<D> {
  /** The getter of `fastify.mcp`. */
  readonly getter: (this: FastifyInstance) => D
  /**
   * Run once, at ready: warns of hooks added where nothing is served, seals
   * the hooks and returns what picks each request's chains (undefined: no hook).
   */
  readonly seal: () => HookSelector | undefined
}

/** `decorator` as the context reading it sees it, and the step that seals its hooks. */
export function hookedDecorator<D extends WithAddHook> (fastify: FastifyInstance, decorator: D, served: ServedContexts): HookedDecorator<D> {
  const hooks = new HookRegistry()
  const views = new WeakMap<FastifyInstance, D>()
  function seal (): HookSelector | undefined {
    for (const context of hooks.idleContexts(fastify, served.all())) {
      context.log.warn('MCP hooks were added in a context that serves no MCP operation (no route-backed tool is declared in it or below): they will not run')
    }
    return hooks.settle(fastify, (name) => served.of(name))
  }
  function getter (this: FastifyInstance): D {
    let view = views.get(this)
    if (view === undefined) {
      const context = this
      view = Object.freeze(Object.create(decorator, {
        addHook: { value: <N extends McpHookName>(name: N, hook: McpHooks[N]) => hooks.add(context, name, hook), enumerable: true }
      }) as D)
      views.set(this, view)
    }
    return view
  }
  return { getter, seal }
}
