/**
 * The one table of every JSON-RPC method the endpoint answers: those a
 * server module's handlers serve (with the capability each turns on) and
 * those the endpoint serves itself (`initialize`, `ping`, `server/discover`,
 * `subscriptions/listen`, `tasks/*`), each with the eras it exists in.
 * `buildCapabilities` derives what is advertised from it and the dispatcher
 * finds what answers a request in it, so the two cannot disagree. Adding a
 * method is one entry here plus its handler (a server module method, or an
 * endpoint handler of each era it exists in: the era's handler table is
 * typed from this one, so a missing handler does not compile).
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
  | 'listSkills'
  | 'getSkill'
  | 'readResourceDirectory'

/**
 * Capabilities that handlers turn on (`resources.subscribe` is a flag inside
 * `resources`; `skills` is the Skills extension, `skills.directoryRead` its setting).
 */
export type CapabilityName = 'tools' | 'resources' | 'prompts' | 'completions' | 'logging' | 'resources.subscribe' | 'skills' | 'skills.directoryRead'

/** A method answered by a server module handler. */
export interface ModuleMethod {
  readonly servedBy: 'module'
  /** The server module method that serves it. */
  readonly handler: HandlerName
  /** The capability that must be advertised for the method to be answered. */
  readonly capability: CapabilityName
  /** Eras in which the method exists at all; modern removed a few. */
  readonly eras: readonly Era[]
  /** Modern results of these methods carry `ttlMs` and `cacheScope`. */
  readonly cacheable: boolean
  /** The param that the modern `Mcp-Name` header must repeat, if any. */
  readonly nameParam?: 'name' | 'uri'
  /** The result served when this optional handler is absent (a capability does not need it). */
  readonly fallbackResult?: Readonly<Record<string, unknown>>
  /** Its handler may ask the client (`ctx.elicit()`, sampling, roots) while serving it. */
  readonly asksClient?: true
}

/** A method the endpoint answers itself, whatever the server module implements. */
export interface EndpointMethod {
  readonly servedBy: 'endpoint'
  readonly eras: readonly Era[]
  /** The param that the modern `Mcp-Name` header must repeat, if any. */
  readonly nameParam?: 'taskId'
  /** Served only when the endpoint serves this extension (`tasks: true`). */
  readonly extension?: 'tasks'
  /** Negotiates the version itself (`initialize`): the version header is not checked. */
  readonly negotiatesVersion?: true
}

export type MethodEntry = ModuleMethod | EndpointMethod

const BOTH: readonly Era[] = Object.freeze(['legacy', 'modern'] as const)
const LEGACY_ONLY = Object.freeze(['legacy'] as const)
const MODERN_ONLY = Object.freeze(['modern'] as const)

function module (entry: Omit<ModuleMethod, 'servedBy'>): ModuleMethod {
  return Object.freeze({ servedBy: 'module', ...entry })
}

function endpoint<const E extends readonly Era[]> (entry: Omit<EndpointMethod, 'servedBy' | 'eras'> & { eras: E }): EndpointMethod & { readonly servedBy: 'endpoint', readonly eras: E } {
  return Object.freeze({ servedBy: 'endpoint', ...entry })
}

const TABLE = {
  // Served by the endpoint.
  initialize: endpoint({ eras: LEGACY_ONLY, negotiatesVersion: true }),
  ping: endpoint({ eras: LEGACY_ONLY }),
  'server/discover': endpoint({ eras: MODERN_ONLY }),
  'subscriptions/listen': endpoint({ eras: MODERN_ONLY }),
  'tasks/get': endpoint({ eras: MODERN_ONLY, extension: 'tasks', nameParam: 'taskId' }),
  'tasks/update': endpoint({ eras: MODERN_ONLY, extension: 'tasks', nameParam: 'taskId' }),
  'tasks/cancel': endpoint({ eras: MODERN_ONLY, extension: 'tasks', nameParam: 'taskId' }),
  // Served by the server module.
  'tools/list': module({ handler: 'listTools', capability: 'tools', eras: BOTH, cacheable: true }),
  'tools/call': module({ handler: 'callTool', capability: 'tools', eras: BOTH, cacheable: false, nameParam: 'name', asksClient: true }),
  'resources/list': module({ handler: 'listResources', capability: 'resources', eras: BOTH, cacheable: true }),
  'resources/read': module({ handler: 'readResource', capability: 'resources', eras: BOTH, cacheable: true, nameParam: 'uri', asksClient: true }),
  'resources/templates/list': module({ handler: 'listResourceTemplates', capability: 'resources', eras: BOTH, cacheable: true, fallbackResult: Object.freeze({ resourceTemplates: Object.freeze([]) }) }),
  'prompts/list': module({ handler: 'listPrompts', capability: 'prompts', eras: BOTH, cacheable: true }),
  'prompts/get': module({ handler: 'getPrompt', capability: 'prompts', eras: BOTH, cacheable: false, nameParam: 'name', asksClient: true }),
  'completion/complete': module({ handler: 'complete', capability: 'completions', eras: BOTH, cacheable: false }),
  'resources/subscribe': module({ handler: 'subscribeResource', capability: 'resources.subscribe', eras: LEGACY_ONLY, cacheable: false }),
  'resources/unsubscribe': module({ handler: 'unsubscribeResource', capability: 'resources.subscribe', eras: LEGACY_ONLY, cacheable: false, fallbackResult: Object.freeze({}) }),
  // The endpoint keeps the level (per caller); a module's own setLogLevel is told too, when it has one.
  'logging/setLevel': module({ handler: 'setLogLevel', capability: 'logging', eras: LEGACY_ONLY, cacheable: false, fallbackResult: Object.freeze({}) }),
  // The Skills extension (io.modelcontextprotocol/skills), specified on 2026-07-28 and later: modern only.
  'skills/list': module({ handler: 'listSkills', capability: 'skills', eras: MODERN_ONLY, cacheable: true }),
  'skills/get': module({ handler: 'getSkill', capability: 'skills', eras: MODERN_ONLY, cacheable: true }),
  'resources/directory/read': module({ handler: 'readResourceDirectory', capability: 'skills.directoryRead', eras: MODERN_ONLY, cacheable: false })
} as const

/** The endpoint-served methods that exist in `era`: each era's endpoint handler table has exactly these keys. */
export type EndpointMethodName<E extends Era> = {
  [K in keyof typeof TABLE]: typeof TABLE[K] extends { readonly servedBy: 'endpoint', readonly eras: readonly (infer X)[] } ? (E extends X ? K : never) : never
}[keyof typeof TABLE]

/**
 * Every method, by JSON-RPC method name. Null prototype: a method named
 * `constructor` or `toString` finds nothing.
 */
export const METHODS: Readonly<Record<string, MethodEntry>> = Object.freeze(Object.assign(Object.create(null) as Record<string, MethodEntry>, TABLE))

/** The entry of `method` when it exists in `era`; undefined for unknown methods and those of the other era only. */
export function methodIn (era: Era, method: string): MethodEntry | undefined {
  const entry = METHODS[method]
  return entry !== undefined && entry.eras.includes(era) ? entry : undefined
}

/** The entries a server module serves (what `buildCapabilities` and the authorization scopes read). */
export const MODULE_METHODS: ReadonlyArray<readonly [string, ModuleMethod]> = Object.freeze(
  Object.entries(TABLE).flatMap(([name, entry]) => entry.servedBy === 'module' ? [Object.freeze([name, entry] as const)] : []))

/** The module entry of `method`, if a server module handler serves it (in any era). */
export function moduleMethod (method: string): ModuleMethod | undefined {
  const entry = METHODS[method]
  return entry?.servedBy === 'module' ? entry : undefined
}

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
  'resources.subscribe': Object.freeze(['subscribeResource'] as const),
  skills: Object.freeze(['listSkills', 'getSkill'] as const),
  'skills.directoryRead': Object.freeze(['readResourceDirectory'] as const)
})

/** True when `server[name]` is a function, own or inherited (class instances work). */
export function hasHandler (server: object, name: string): boolean {
  return typeof (server as Record<string, unknown>)[name] === 'function'
}
