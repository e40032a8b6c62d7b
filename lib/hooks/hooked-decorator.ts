/**
 * `fastify.mcp` as each context sees it: the same frozen decorator, with an
 * `addHook` that adds in that context (the getter's `this`), as
 * `fastify.addHook` does. Once the app is ready the hooks are fixed and the
 * chains that apply to the endpoint are handed over (lib/hooks/registry.ts).
 */
import type { FastifyInstance } from 'fastify'
import { type HookChains, HookRegistry } from './registry.js'
import type { McpHookName, McpHooks } from './types.js'

export interface WithAddHook {
  addHook<N extends McpHookName> (name: N, hook: McpHooks[N]): void
}

/**
 * The getter of `fastify.mcp`: `decorator` as the context reading it sees
 * it. At ready, seals the hooks and calls `settle` with those that apply to
 * what `fastify` (the endpoint's context) serves.
 */
export function hookedDecorator<D extends WithAddHook> (fastify: FastifyInstance, decorator: D, settle: (chains: HookChains | undefined) => void): (this: FastifyInstance) => D {
  const hooks = new HookRegistry()
  const views = new WeakMap<FastifyInstance, D>()
  fastify.addHook('onReady', function settleOperations () {
    hooks.seal()
    settle(hooks.chainsFor(fastify))
  })
  return function (this: FastifyInstance): D {
    let view = views.get(this)
    if (view === undefined) {
      const context = this
      view = Object.freeze(Object.create(decorator, {
        addHook: { value: <N extends McpHookName>(name: N, hook: McpHooks[N]) => hooks.add(context, name, hook, fastify), enumerable: true }
      }) as D)
      views.set(this, view)
    }
    return view
  }
}
