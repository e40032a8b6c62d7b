/**
 * Derives the `capabilities` object a server advertises from the handlers its
 * module implements (docs/protocol.md). The endpoint dispatches with the same
 * table (protocol/methods.ts), so what is advertised is exactly what is served.
 */
import { FST_MCP_INVALID_CAPABILITIES, FST_MCP_INVALID_ERA, FST_MCP_INVALID_OPTION, FST_MCP_INVALID_SERVER, FST_MCP_MISSING_HANDLER } from '../errors.js'
import { type CapabilityName, type Era, hasHandler, REQUIRED_HANDLERS, SKILLS_EXTENSION } from '../protocol/methods.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import type { CapabilitiesDeclaration, JsonObject } from './contract.js'
import { nearMissHint } from './module-check.js'

export const ERAS: readonly Era[] = Object.freeze(['legacy', 'modern'])
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** True when a request's client capabilities declare the tasks extension. */
export function declaresTasks (clientCapabilities: JsonObject): boolean {
  const extensions = clientCapabilities.extensions
  return isJsonObject(extensions) && isJsonObject(extensions[TASKS_EXTENSION])
}
/**
 * Extensions a module offers through its definitions (MCP Apps' UI resources
 * put `io.modelcontextprotocol/ui` here): a symbol key, so spreading the
 * definitions into a module carries it and no handler name is taken.
 * Advertised under `extensions` in both eras (the legacy schemas leave the
 * capabilities object open, and the extensions mechanism uses it there too).
 */
export const OFFERED_EXTENSIONS: unique symbol = Symbol.for('fastify-mcp-capabilities.offeredExtensions')

const DECLARABLE_KEYS: ReadonlySet<string> = new Set([
  'tools', 'resources', 'prompts', 'completions', 'logging', 'experimental', 'extensions'
])

export interface BuildCapabilitiesOptions<E extends Era = Era> {
  /** Which protocol era's shape to build; default `'legacy'`. */
  era?: E
  /** Advertise the tasks extension (modern era only); default `false`. */
  tasks?: boolean
  /** Legacy sessions are on (the `sessions` option): the endpoint serves `resources/subscribe` per session; default `false`. */
  sessions?: boolean
}

// ---------------------------------------------------------------------------
// Types: the result type follows the module's type, so a module with only
// `listTools` and `callTool` yields `{ tools: ... }` and no `prompts`.

type HandlerState<M, K extends PropertyKey> =
  K extends keyof M
    ? undefined extends M[K]
      ? 'maybe'
      : M[K] extends (...args: any[]) => any ? 'yes' : 'no'
    : 'no'

type Field<S, T> = S extends 'yes' ? T : S extends 'maybe' ? T | undefined : never
type Flatten<T> = { [K in keyof T as [T[K]] extends [never] ? never : K]: T[K] }
type Optionalise<T> = Flatten<
  { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } &
  { [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined> }
>

// legacy `subscribe` follows the handler exactly: present, maybe, or absent
type LegacyResources<M> = Optionalise<{
  readonly listChanged: true
  readonly subscribe: Field<HandlerState<M, 'subscribeResource'>, true>
}>

type LegacyShape<M> = Optionalise<{
  tools: Field<HandlerState<M, 'listTools'>, { readonly listChanged: true }>
  resources: Field<HandlerState<M, 'listResources'>, Readonly<LegacyResources<M>>>
  prompts: Field<HandlerState<M, 'listPrompts'>, { readonly listChanged: true }>
  completions: Field<HandlerState<M, 'complete'>, Readonly<JsonObject>>
  logging: Readonly<JsonObject>
}>

type ModernShape<M> = Optionalise<{
  tools: Field<HandlerState<M, 'listTools'>, { readonly listChanged: true }>
  resources: Field<HandlerState<M, 'listResources'>, { readonly listChanged: true, readonly subscribe: true }>
  prompts: Field<HandlerState<M, 'listPrompts'>, { readonly listChanged: true }>
  completions: Field<HandlerState<M, 'complete'>, Readonly<JsonObject>>
  logging: Readonly<JsonObject>
}> & { readonly extensions?: Readonly<Record<string, Readonly<JsonObject>>> }

/** The general shape of a legacy (2024-11-05 .. 2025-11-25) `ServerCapabilities`. */
export interface LegacyServerCapabilities {
  readonly tools?: { readonly listChanged: boolean }
  readonly resources?: { readonly listChanged: boolean, readonly subscribe?: boolean }
  readonly prompts?: { readonly listChanged: boolean }
  readonly completions?: Readonly<JsonObject>
  readonly logging?: Readonly<JsonObject>
  readonly experimental?: Readonly<Record<string, Readonly<JsonObject>>>
  /** Extensions the module's definitions offer (OFFERED_EXTENSIONS), e.g. MCP Apps. */
  readonly extensions?: Readonly<Record<string, Readonly<JsonObject>>>
}

/** The general shape of a modern (2026-07-28) `ServerCapabilities`: the legacy fields, plus `extensions`. */
export interface ModernServerCapabilities extends LegacyServerCapabilities {
  readonly extensions?: Readonly<Record<string, Readonly<JsonObject>>>
}

/** The capabilities type `buildCapabilities` returns for module type `M` in era `E`. */
export type BuiltCapabilities<M, E extends Era> =
  // a declaration (even an optional one) can switch anything off: general shape
  'capabilities' extends keyof M
    ? (E extends 'modern' ? ModernServerCapabilities : LegacyServerCapabilities)
    : E extends 'modern'
      ? Readonly<ModernShape<M>>
      : E extends 'legacy'
        ? Readonly<LegacyShape<M>>
        : LegacyServerCapabilities | ModernServerCapabilities

// ---------------------------------------------------------------------------

interface Base {
  tools?: JsonObject
  resources?: JsonObject
  prompts?: JsonObject
  completions?: JsonObject | false
  logging?: JsonObject | false
  experimental?: Record<string, JsonObject>
  extensions?: Record<string, JsonObject>
}

function isPlainObject (value: unknown): value is JsonObject {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as JsonObject)[key])
    Object.freeze(value)
  }
  return value
}

/** A JSON-safe copy of a declared sub-object (settings are data, never functions). */
function copyObject (where: string, value: unknown): JsonObject {
  if (!isPlainObject(value)) throw new FST_MCP_INVALID_CAPABILITIES(`"${where}" must be an object or false`)
  let copy: unknown
  try {
    copy = JSON.parse(JSON.stringify(value))
  } catch {
    throw new FST_MCP_INVALID_CAPABILITIES(`"${where}" is not JSON data`)
  }
  return copy as JsonObject
}

function copyMap (where: string, value: unknown): Record<string, JsonObject> {
  if (!isPlainObject(value)) throw new FST_MCP_INVALID_CAPABILITIES(`"${where}" must be an object of objects`)
  const out: Record<string, JsonObject> = {}
  for (const key of Object.keys(value)) out[key] = copyObject(`${where}.${key}`, value[key])
  return out
}

function declaredBase (server: object, era: Era): Base {
  const declared = (server as { capabilities?: unknown }).capabilities
  const resolved: unknown = typeof declared === 'function' ? declared.call(server, { era }) : declared
  if (!isPlainObject(resolved)) {
    throw new FST_MCP_INVALID_CAPABILITIES('"capabilities" must be an object or a function returning one')
  }
  const decl = resolved as CapabilitiesDeclaration & JsonObject
  for (const key of Object.keys(decl)) {
    if (!DECLARABLE_KEYS.has(key)) {
      throw new FST_MCP_INVALID_CAPABILITIES(`unknown capability "${key}" (known: ${[...DECLARABLE_KEYS].join(', ')})`)
    }
  }
  const base: Base = {}
  for (const key of ['tools', 'resources', 'prompts'] as const) {
    const value = decl[key]
    if (value !== undefined && value !== false) base[key] = copyObject(key, value)
  }
  for (const key of ['completions', 'logging'] as const) {
    const value = decl[key]
    if (value === false) base[key] = false
    else if (value !== undefined) base[key] = copyObject(key, value)
  }
  if (decl.experimental !== undefined) base.experimental = copyMap('experimental', decl.experimental)
  if (decl.extensions !== undefined) base.extensions = copyMap('extensions', decl.extensions)
  return base
}

function derivedBase (server: object): Base {
  const base: Base = {}
  if (hasHandler(server, 'listTools')) base.tools = {}
  if (hasHandler(server, 'listResources')) base.resources = {}
  if (hasHandler(server, 'listPrompts')) base.prompts = {}
  return base
}

/** What the module's definitions offer under OFFERED_EXTENSIONS (copied; nothing when absent or malformed). */
export function offeredExtensions (server: object): Record<string, JsonObject> {
  const offered = (server as { [OFFERED_EXTENSIONS]?: unknown })[OFFERED_EXTENSIONS]
  return offered === undefined ? {} : copyMap('offered extensions', offered)
}

function requireHandlers (server: object, capability: CapabilityName): void {
  for (const handler of REQUIRED_HANDLERS[capability]) {
    if (!hasHandler(server, handler)) throw new FST_MCP_MISSING_HANDLER(capability, handler, nearMissHint(server, handler))
  }
}

/**
 * Returns the frozen capabilities object advertised for `server` in `era`.
 *
 * - base set: the module's own `capabilities` (object, or function of `{ era }`)
 *   when it has one, else tools/resources/prompts for each list handler;
 * - legacy: `listChanged: true` unless the module said `false` (the endpoint's
 *   standalone GET stream carries list changes to legacy clients, from every
 *   instance); `resources.subscribe` iff `subscribeResource`, or `sessions`
 *   (the endpoint then subscribes per session);
 *   `logging` always (the endpoint answers `logging/setLevel` itself);
 *   `completions` iff `complete`;
 * - modern: `listChanged: true`, `resources.subscribe: true`, `logging` always,
 *   (`logging` in both eras and the rest unless the declaration sets it `false`),
 *   `completions` iff `complete`, the tasks extension iff `tasks`, the skills
 *   extension iff `listSkills` and `getSkill` (`directoryRead` iff `readResourceDirectory`).
 *
 * Throws `FST_MCP_MISSING_HANDLER` when a capability would be advertised
 * without the handlers that serve it.
 */
export function buildCapabilities<M extends object, E extends Era = 'legacy'> (
  server: M,
  options: BuildCapabilitiesOptions<E> = {}
): BuiltCapabilities<M, E> {
  if (server === null || typeof server !== 'object' || Array.isArray(server)) {
    throw new FST_MCP_INVALID_SERVER('expected an object whose methods are the MCP handlers')
  }
  if (options === null || typeof options !== 'object') {
    throw new FST_MCP_INVALID_OPTION('options', 'must be an object')
  }
  // only an absent era defaults; null, '' and the like are rejected
  const era: unknown = options.era === undefined ? 'legacy' : options.era
  if (era !== 'legacy' && era !== 'modern') {
    throw new FST_MCP_INVALID_ERA(String(era), ERAS.join(', '))
  }
  if (options.tasks !== undefined && typeof options.tasks !== 'boolean') {
    throw new FST_MCP_INVALID_OPTION('tasks', 'must be a boolean')
  }
  if (options.sessions !== undefined && typeof options.sessions !== 'boolean') {
    throw new FST_MCP_INVALID_OPTION('sessions', 'must be a boolean')
  }
  const modern = era === 'modern'
  const declared = (server as { capabilities?: unknown }).capabilities !== undefined
  const base = declared ? declaredBase(server, era) : derivedBase(server)

  const caps: JsonObject = {}
  // Both eras push list changes (modern: subscriptions/listen; legacy: the standalone GET stream) unless the module said `false`.
  const listChanged = (set: JsonObject): boolean => set.listChanged !== false

  if (base.tools) {
    requireHandlers(server, 'tools')
    caps.tools = { ...base.tools, listChanged: listChanged(base.tools) }
  }
  if (base.resources) {
    requireHandlers(server, 'resources')
    const explicitSubscribe = base.resources.subscribe
    const resources: JsonObject = { ...base.resources, listChanged: listChanged(base.resources) }
    delete resources.subscribe
    if (explicitSubscribe !== false) {
      if (modern) {
        // every modern endpoint answers subscriptions/listen
        resources.subscribe = true
      } else if (options.sessions === true && !hasHandler(server, 'subscribeResource')) {
        // the endpoint subscribes per session (lib/endpoint/legacy-sessions.ts)
        resources.subscribe = true
      } else if (explicitSubscribe === true || hasHandler(server, 'subscribeResource')) {
        requireHandlers(server, 'resources.subscribe')
        resources.subscribe = true
      }
    }
    caps.resources = resources
  }
  if (base.prompts) {
    requireHandlers(server, 'prompts')
    caps.prompts = { ...base.prompts, listChanged: listChanged(base.prompts) }
  }

  if (base.completions !== false && (base.completions !== undefined || hasHandler(server, 'complete'))) {
    requireHandlers(server, 'completions')
    caps.completions = base.completions ?? {}
  }

  // Any handler may log: modern on a request that sets a logLevel, legacy once the caller
  // sent logging/setLevel (answered by the endpoint, the module's setLogLevel being optional).
  if (base.logging !== false) caps.logging = base.logging ?? {}

  if (base.experimental) caps.experimental = base.experimental

  const offered = offeredExtensions(server)
  if (modern) {
    const extensions: Record<string, JsonObject> = { ...offered, ...base.extensions }
    if (options.tasks === true) extensions[TASKS_EXTENSION] = extensions[TASKS_EXTENSION] ?? {}
    else delete extensions[TASKS_EXTENSION]
    if (hasHandler(server, 'listSkills') || hasHandler(server, 'getSkill')) {
      requireHandlers(server, 'skills')
      if (caps.resources === undefined) throw new FST_MCP_INVALID_CAPABILITIES('the skills extension needs the "resources" capability (skill files are read with resources/read)')
      extensions[SKILLS_EXTENSION] = hasHandler(server, 'readResourceDirectory') ? { directoryRead: true } : {}
    } else {
      delete extensions[SKILLS_EXTENSION]
    }
    if (Object.keys(extensions).length > 0) caps.extensions = extensions
  } else if (Object.keys(offered).length > 0) {
    caps.extensions = offered
  }

  return deepFreeze(caps) as BuiltCapabilities<M, E>
}
