/**
 * The one table of every JSON-RPC method the endpoint answers: those a
 * server module's handlers serve and those the endpoint serves itself
 * (`initialize`, `ping`, `server/discover`, `subscriptions/listen`,
 * `tasks/*`). Each entry says everything the endpoint needs to know about
 * its method: the eras it exists in, what it acts on (`target`: the param
 * naming it and the kind of thing it names), and for a module-served method
 * its handler, the capability that handler turns on, its result schema per
 * era, whether it is a list (what it lists, which handler serves one item,
 * which `list_changed` notification tells it changed), whether preHandler
 * hooks run before it, whether it may ask the client.
 *
 * Everything else is derived from here: the handler names (`HandlerName`,
 * `HANDLER_NAMES`), the advertised capabilities, the dispatcher's routing,
 * the `Mcp-Name` header check, the log subject of a fault, the list filter
 * and view, the list-changed notifications, result validation and the
 * telemetry attributes. Adding a module-served method is one entry here, its
 * schemas (protocol/schemas.ts) and its handler; an endpoint-served one also
 * needs a handler in each era it exists in (the era's handler table is typed
 * from this one, so a missing handler does not compile).
 */
import type { TSchema } from '@sinclair/typebox'
import {
  CallToolResult,
  CompleteResult,
  EmptyResult,
  GetPromptResult,
  GetSkillResult,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListSkillsResult,
  ListToolsResult,
  ModernCallToolResult,
  ReadResourceDirectoryResult,
  ReadResourceResult
} from './schemas.js'

export type Era = 'legacy' | 'modern'

/**
 * The Skills extension: advertised (modern era, the revision it is specified
 * on) when the module serves `listSkills` and `getSkill`, with
 * `directoryRead: true` when it also serves `readResourceDirectory`; it needs
 * the `resources` capability, since skill files are read as resources.
 */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills'

/** Where a capability is advertised: the keys leading to it in a capabilities object; `flag`: the value there must be `true`, not merely present. */
export interface CapabilityPlace {
  readonly path: readonly string[]
  readonly flag: boolean
}

const place = (path: readonly string[], flag = false): CapabilityPlace => Object.freeze({ path: Object.freeze(path), flag })

/**
 * Capabilities that handlers turn on, each with where it is advertised
 * (`resources.subscribe` is a flag inside `resources`; `skills` is the Skills
 * extension, `skills.directoryRead` its setting).
 */
export const CAPABILITIES = Object.freeze({
  tools: place(['tools']),
  resources: place(['resources']),
  prompts: place(['prompts']),
  completions: place(['completions']),
  logging: place(['logging']),
  'resources.subscribe': place(['resources', 'subscribe'], true),
  skills: place(['extensions', SKILLS_EXTENSION]),
  'skills.directoryRead': place(['extensions', SKILLS_EXTENSION, 'directoryRead'], true)
})

export type CapabilityName = keyof typeof CAPABILITIES

/** Whether `capabilities` (either era's shape) advertise `capability`, read at the capability's place. */
export function isAdvertised (capabilities: object, capability: CapabilityName): boolean {
  const { path, flag } = CAPABILITIES[capability]
  let value: unknown = capabilities
  for (const key of path) {
    if (value === null || typeof value !== 'object') return false
    value = (value as Record<string, unknown>)[key]
  }
  return flag ? value === true : value !== undefined
}

/** What a request acts on: the param naming it (repeated by the modern `Mcp-Name` header) and what it names. */
export interface Target {
  readonly param: 'name' | 'uri' | 'taskId'
  readonly kind: 'tool' | 'prompt' | 'resource' | 'task'
}

/** The lists that announce changes (`notifications/<name>/list_changed`). */
export type ListName = 'tools' | 'prompts' | 'resources'

/** What a list method lists. */
export interface ListMeta<H extends string = string> {
  /** The result's array. */
  readonly items: string
  /** The handler that serves one item (its scope requirement is the item's). */
  readonly itemHandler: H
  /** The item field naming it, as that handler is asked (`{ uriTemplate }` for a template). */
  readonly key: 'name' | 'uri' | 'uriTemplate'
  /** The list whose `list_changed` notification says this one changed. */
  readonly changed: ListName
  /** MCP Apps: items a client without the extension is not shown, by this field's `ui://` value; `'tool'` for the tool rules. */
  readonly uiView?: 'tool' | 'uri' | 'uriTemplate'
}

/** A method answered by a server module handler (`H` its handler, `I` the handler of a listed item). */
export interface ModuleMethodOf<H extends string, I extends string> {
  readonly servedBy: 'module'
  /** The server module method that serves it. */
  readonly handler: H
  /** The capability that must be advertised for the method to be answered. */
  readonly capability: CapabilityName
  /** Eras in which the method exists at all; modern removed a few. */
  readonly eras: readonly Era[]
  /** Modern results of these methods carry `ttlMs` and `cacheScope`. */
  readonly cacheable: boolean
  /** What it acts on, if one thing. */
  readonly target?: Target
  /** The wire schema of its result, per era (`validate.results`). */
  readonly result: { readonly legacy: TSchema, readonly modern: TSchema }
  /** A list: what it lists. */
  readonly list?: ListMeta<I>
  /** preHandler hooks run before its handler (a defined tool's or prompt's once its arguments are valid). */
  readonly preHandler?: true
  /** The result served when this optional handler is absent (a capability does not need it). */
  readonly fallbackResult?: Readonly<Record<string, unknown>>
  /** Its handler may ask the client (`ctx.elicit()`, sampling, roots) while serving it. */
  readonly asksClient?: true
  /** Its handler throwing is a tool execution error (`isError: true`), not a JSON-RPC error. */
  readonly throwsAsResult?: true
}

/** A method the endpoint answers itself, whatever the server module implements. */
export interface EndpointMethod {
  readonly servedBy: 'endpoint'
  readonly eras: readonly Era[]
  /** What it acts on, if one thing. */
  readonly target?: Target
  /** Served only when the endpoint serves this extension (`tasks: true`). */
  readonly extension?: 'tasks'
  /** Negotiates the version itself (`initialize`): the version header is not checked. */
  readonly negotiatesVersion?: true
}

/** A method answered by a server module handler. */
export type ModuleMethod = ModuleMethodOf<HandlerName, HandlerName>

export type MethodEntry = ModuleMethod | EndpointMethod

const BOTH: readonly Era[] = Object.freeze(['legacy', 'modern'] as const)
const LEGACY_ONLY = Object.freeze(['legacy'] as const)
const MODERN_ONLY = Object.freeze(['modern'] as const)

const TOOL: Target = Object.freeze({ param: 'name', kind: 'tool' })
const PROMPT: Target = Object.freeze({ param: 'name', kind: 'prompt' })
const RESOURCE: Target = Object.freeze({ param: 'uri', kind: 'resource' })
const TASK: Target = Object.freeze({ param: 'taskId', kind: 'task' })

/** The same result schema in both eras. */
const same = (schema: TSchema): ModuleMethodOf<string, string>['result'] => Object.freeze({ legacy: schema, modern: schema })
const EMPTY = same(EmptyResult)

type AnyEntry = Partial<Omit<ModuleMethodOf<string, string>, 'servedBy'> & Omit<EndpointMethod, 'servedBy'>>
/** Every field of either kind, each present (so a field added to a kind and not listed in `shaped` fails to compile). */
type EntryField = keyof AnyEntry
type EveryField = { readonly [K in EntryField]: AnyEntry[K] } & { readonly servedBy: MethodEntry['servedBy'] }

/**
 * Every entry carries every field of both kinds, in one order (undefined
 * where it does not apply): one hidden class for the whole table, so the
 * request path reading entries (methodIn, the eras) stays monomorphic
 * whichever methods a workload mixes.
 */
function shaped (servedBy: MethodEntry['servedBy'], entry: AnyEntry): unknown {
  const fields: EveryField = {
    servedBy,
    eras: entry.eras,
    target: entry.target,
    extension: entry.extension,
    negotiatesVersion: entry.negotiatesVersion,
    handler: entry.handler,
    capability: entry.capability,
    cacheable: entry.cacheable,
    result: entry.result,
    list: entry.list,
    preHandler: entry.preHandler,
    fallbackResult: entry.fallbackResult,
    asksClient: entry.asksClient,
    throwsAsResult: entry.throwsAsResult
  }
  return Object.freeze(fields)
}

function module<const H extends string, const I extends string = never> (entry: Omit<ModuleMethodOf<H, I>, 'servedBy'>): ModuleMethodOf<H, I> {
  return shaped('module', entry) as ModuleMethodOf<H, I>
}

function endpoint<const E extends readonly Era[]> (entry: Omit<EndpointMethod, 'servedBy' | 'eras'> & { eras: E }): EndpointMethod & { readonly servedBy: 'endpoint', readonly eras: E } {
  return shaped('endpoint', entry) as EndpointMethod & { readonly servedBy: 'endpoint', readonly eras: E }
}

function list<const H extends string> (entry: ListMeta<H>): ListMeta<H> {
  return Object.freeze(entry)
}

const TABLE = {
  // Served by the endpoint.
  initialize: endpoint({ eras: LEGACY_ONLY, negotiatesVersion: true }),
  ping: endpoint({ eras: LEGACY_ONLY }),
  'server/discover': endpoint({ eras: MODERN_ONLY }),
  'subscriptions/listen': endpoint({ eras: MODERN_ONLY }),
  'tasks/get': endpoint({ eras: MODERN_ONLY, extension: 'tasks', target: TASK }),
  'tasks/update': endpoint({ eras: MODERN_ONLY, extension: 'tasks', target: TASK }),
  'tasks/cancel': endpoint({ eras: MODERN_ONLY, extension: 'tasks', target: TASK }),
  // Served by the server module.
  'tools/list': module({
    handler: 'listTools',
    capability: 'tools',
    eras: BOTH,
    cacheable: true,
    result: same(ListToolsResult),
    list: list({ items: 'tools', itemHandler: 'callTool', key: 'name', changed: 'tools', uiView: 'tool' })
  }),
  'tools/call': module({
    handler: 'callTool',
    capability: 'tools',
    eras: BOTH,
    cacheable: false,
    target: TOOL,
    preHandler: true,
    asksClient: true,
    throwsAsResult: true,
    // 2026-07-28 lets `structuredContent` be any JSON value; legacy revisions want an object.
    result: Object.freeze({ legacy: CallToolResult, modern: ModernCallToolResult })
  }),
  'resources/list': module({
    handler: 'listResources',
    capability: 'resources',
    eras: BOTH,
    cacheable: true,
    result: same(ListResourcesResult),
    list: list({ items: 'resources', itemHandler: 'readResource', key: 'uri', changed: 'resources', uiView: 'uri' })
  }),
  'resources/read': module({
    handler: 'readResource', capability: 'resources', eras: BOTH, cacheable: true, target: RESOURCE, preHandler: true, asksClient: true, result: same(ReadResourceResult)
  }),
  'resources/templates/list': module({
    handler: 'listResourceTemplates',
    capability: 'resources',
    eras: BOTH,
    cacheable: true,
    result: same(ListResourceTemplatesResult),
    list: list({ items: 'resourceTemplates', itemHandler: 'readResource', key: 'uriTemplate', changed: 'resources', uiView: 'uriTemplate' }),
    fallbackResult: Object.freeze({ resourceTemplates: Object.freeze([]) })
  }),
  'prompts/list': module({
    handler: 'listPrompts',
    capability: 'prompts',
    eras: BOTH,
    cacheable: true,
    result: same(ListPromptsResult),
    list: list({ items: 'prompts', itemHandler: 'getPrompt', key: 'name', changed: 'prompts' })
  }),
  'prompts/get': module({
    handler: 'getPrompt', capability: 'prompts', eras: BOTH, cacheable: false, target: PROMPT, preHandler: true, asksClient: true, result: same(GetPromptResult)
  }),
  'completion/complete': module({ handler: 'complete', capability: 'completions', eras: BOTH, cacheable: false, result: same(CompleteResult) }),
  'resources/subscribe': module({ handler: 'subscribeResource', capability: 'resources.subscribe', eras: LEGACY_ONLY, cacheable: false, target: RESOURCE, result: EMPTY }),
  'resources/unsubscribe': module({
    handler: 'unsubscribeResource', capability: 'resources.subscribe', eras: LEGACY_ONLY, cacheable: false, target: RESOURCE, result: EMPTY, fallbackResult: Object.freeze({})
  }),
  // The endpoint keeps the level (per caller); a module's own setLogLevel is told too, when it has one.
  'logging/setLevel': module({ handler: 'setLogLevel', capability: 'logging', eras: LEGACY_ONLY, cacheable: false, result: EMPTY, fallbackResult: Object.freeze({}) }),
  // The Skills extension (io.modelcontextprotocol/skills), specified on 2026-07-28 and later: modern only. A skill's
  // change is told as a resources change (the extension has no notification of its own).
  'skills/list': module({
    handler: 'listSkills',
    capability: 'skills',
    eras: MODERN_ONLY,
    cacheable: true,
    result: same(ListSkillsResult),
    list: list({ items: 'skills', itemHandler: 'getSkill', key: 'uri', changed: 'resources' })
  }),
  'skills/get': module({ handler: 'getSkill', capability: 'skills', eras: MODERN_ONLY, cacheable: true, result: same(GetSkillResult) }),
  // A folder's children are a list too: with filterLists a caller is not shown a skill (or file) it may not read.
  'resources/directory/read': module({
    handler: 'readResourceDirectory',
    capability: 'skills.directoryRead',
    eras: MODERN_ONLY,
    cacheable: false,
    result: same(ReadResourceDirectoryResult),
    list: list({ items: 'resources', itemHandler: 'readResourceDirectory', key: 'uri', changed: 'resources' })
  })
} as const

/** The method table's type: each entry as written (what `HandlerName` and the other derived types read). */
export type MethodTable = typeof TABLE

/** The methods a server module serves, by JSON-RPC name. */
export type ModuleMethodName = { [K in keyof MethodTable]: MethodTable[K] extends { readonly servedBy: 'module' } ? K : never }[keyof MethodTable]

/** Names of the handler methods a server module may implement, one per module-served method of the table. */
export type HandlerName = { [K in ModuleMethodName]: MethodTable[K] extends ModuleMethodOf<infer H, string> ? H : never }[ModuleMethodName]

/** A listed item's handler must be one of the table's: a misspelt one does not compile. */
type ItemHandler = { [K in ModuleMethodName]: MethodTable[K] extends { readonly list: ListMeta<infer I> } ? I : never }[ModuleMethodName]
const itemHandlersAreHandlers: [ItemHandler] extends [HandlerName] ? true : never = true
void itemHandlersAreHandlers

/** The endpoint-served methods that exist in `era`: each era's endpoint handler table has exactly these keys. */
export type EndpointMethodName<E extends Era> = {
  [K in keyof MethodTable]: MethodTable[K] extends { readonly servedBy: 'endpoint', readonly eras: readonly (infer X)[] } ? (E extends X ? K : never) : never
}[keyof MethodTable]

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
export const MODULE_METHODS: ReadonlyArray<readonly [ModuleMethodName, ModuleMethod]> = Object.freeze(
  Object.entries(TABLE).flatMap(([name, entry]) => entry.servedBy === 'module' ? [Object.freeze([name as ModuleMethodName, entry as ModuleMethod] as const)] : []))

/** Every handler name, in the table's order. */
export const HANDLER_NAMES: readonly HandlerName[] = Object.freeze(MODULE_METHODS.map(([, entry]) => entry.handler))

/** The list methods, with what each lists. */
export const LIST_METHODS: ReadonlyArray<readonly [ModuleMethodName, ListMeta<HandlerName>]> = Object.freeze(
  MODULE_METHODS.flatMap(([name, entry]) => entry.list === undefined ? [] : [Object.freeze([name, entry.list] as const)]))

/** Every list that announces changes, once each. */
export const LIST_NAMES: readonly ListName[] = Object.freeze([...new Set(LIST_METHODS.map(([, meta]) => meta.changed))])

/** The module entry of `method`, if a server module handler serves it (in any era). */
export function moduleMethod (method: string): ModuleMethod | undefined {
  const entry = METHODS[method]
  return entry?.servedBy === 'module' ? entry : undefined
}

/** The module entry of a method the table is known to have. */
export function moduleEntry (method: ModuleMethodName): ModuleMethod {
  return METHODS[method] as ModuleMethod
}

/** The value of the param naming what `params` act on, when `entry` has one and it is a string. */
export function targetOf (entry: MethodEntry | undefined, params: Readonly<Record<string, unknown>>): string | undefined {
  const param = entry?.target?.param
  const value = param === undefined ? undefined : params[param]
  return typeof value === 'string' ? value : undefined
}

/**
 * The handlers a capability needs before it may be advertised (those of its
 * methods without a fallback result, in the table's order). A module that
 * has the first (the list handler) but not the rest is rejected: advertising
 * `tools` while `tools/call` answers "method not found" would be a lie.
 */
export const REQUIRED_HANDLERS: Readonly<Record<CapabilityName, readonly HandlerName[]>> = Object.freeze(Object.fromEntries(
  (Object.keys(CAPABILITIES) as CapabilityName[]).map((capability) => [capability, Object.freeze(
    MODULE_METHODS.flatMap(([, entry]) => entry.capability === capability && entry.fallbackResult === undefined ? [entry.handler] : []))])
) as Record<CapabilityName, readonly HandlerName[]>)

/** True when `server[name]` is a function, own or inherited (class instances work). */
export function hasHandler (server: object, name: string): boolean {
  return typeof (server as Record<string, unknown>)[name] === 'function'
}
