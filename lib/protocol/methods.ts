/**
 * The one table that links a server module's handlers to JSON-RPC methods and
 * to the capability each turns on. `buildCapabilities` derives what is
 * advertised from it and the endpoint routes with it, so the two cannot disagree.
 */

export type Era = 'legacy' | 'modern'

/** Names of the handler methods a server module may implement. */
export type HandlerName =
  | 'listTools'
  | 'callTool'
  | 'listResources'
  | 'readResource'
  | 'listResourceTemplates'
  | 'listPrompts'
  | 'getPrompt'
  | 'complete'
  | 'subscribeResource'
  | 'unsubscribeResource'
  | 'setLogLevel'

/** Capabilities that handlers turn on (`resources.subscribe` is a flag inside `resources`). */
export type CapabilityName = 'tools' | 'resources' | 'prompts' | 'completions' | 'logging' | 'resources.subscribe'

export interface MethodRoute {
  /** The server module method that serves it. */
  readonly handler: HandlerName
  /** The capability that must be advertised for the method to be routed. */
  readonly capability: CapabilityName
  /** Eras in which the method exists at all; modern removed a few. */
  readonly eras: readonly Era[]
  /** Modern results of these methods carry `ttlMs` and `cacheScope`. */
  readonly cacheable: boolean
  /** The param that the modern `Mcp-Name` header must repeat, if any. */
  readonly nameParam?: 'name' | 'uri'
  /** The result served when this optional handler is absent (a capability does not need it). */
  readonly fallbackResult?: Readonly<Record<string, unknown>>
}

const BOTH: readonly Era[] = Object.freeze(['legacy', 'modern'])
const LEGACY_ONLY: readonly Era[] = Object.freeze(['legacy'])

function route (r: MethodRoute): MethodRoute {
  return Object.freeze(r)
}

/**
 * Every method routed to a server module handler, by JSON-RPC method name.
 * Null prototype: a method named `constructor` or `toString` finds nothing.
 */
export const METHOD_ROUTES: Readonly<Record<string, MethodRoute>> = Object.freeze(Object.assign(Object.create(null) as Record<string, MethodRoute>, {
  'tools/list': route({ handler: 'listTools', capability: 'tools', eras: BOTH, cacheable: true }),
  'tools/call': route({ handler: 'callTool', capability: 'tools', eras: BOTH, cacheable: false, nameParam: 'name' }),
  'resources/list': route({ handler: 'listResources', capability: 'resources', eras: BOTH, cacheable: true }),
  'resources/read': route({ handler: 'readResource', capability: 'resources', eras: BOTH, cacheable: true, nameParam: 'uri' }),
  'resources/templates/list': route({ handler: 'listResourceTemplates', capability: 'resources', eras: BOTH, cacheable: true, fallbackResult: Object.freeze({ resourceTemplates: Object.freeze([]) }) }),
  'prompts/list': route({ handler: 'listPrompts', capability: 'prompts', eras: BOTH, cacheable: true }),
  'prompts/get': route({ handler: 'getPrompt', capability: 'prompts', eras: BOTH, cacheable: false, nameParam: 'name' }),
  'completion/complete': route({ handler: 'complete', capability: 'completions', eras: BOTH, cacheable: false }),
  'resources/subscribe': route({ handler: 'subscribeResource', capability: 'resources.subscribe', eras: LEGACY_ONLY, cacheable: false }),
  'resources/unsubscribe': route({ handler: 'unsubscribeResource', capability: 'resources.subscribe', eras: LEGACY_ONLY, cacheable: false, fallbackResult: Object.freeze({}) }),
  // The endpoint keeps the level (per caller); a module's own setLogLevel is told too, when it has one.
  'logging/setLevel': route({ handler: 'setLogLevel', capability: 'logging', eras: LEGACY_ONLY, cacheable: false, fallbackResult: Object.freeze({}) })
}))

/**
 * The handlers a capability needs before it may be advertised. A module that
 * has the first (the list handler) but not the rest is rejected: advertising
 * `tools` while `tools/call` answers "method not found" would be a lie.
 */
export const REQUIRED_HANDLERS: Readonly<Record<CapabilityName, readonly HandlerName[]>> = Object.freeze({
  tools: Object.freeze(['listTools', 'callTool'] as const),
  resources: Object.freeze(['listResources', 'readResource'] as const),
  prompts: Object.freeze(['listPrompts', 'getPrompt'] as const),
  completions: Object.freeze(['complete'] as const),
  logging: Object.freeze([] as const),
  'resources.subscribe': Object.freeze(['subscribeResource'] as const)
})

/** Methods that 2026-07-28 removed; a modern request for them is "method not found". */
export const REMOVED_IN_MODERN: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe'
])

/** True when `server[name]` is a function, own or inherited (class instances work). */
export function hasHandler (server: object, name: string): boolean {
  return typeof (server as Record<string, unknown>)[name] === 'function'
}
