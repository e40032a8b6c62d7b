/**
 * Turns the `server` option into the module the endpoint serves: every
 * definition group found on it (groups.ts) goes into one catalogue per kind,
 * in the order of the module's keys (a name, URI or template defined twice
 * fails with both places named), and the catalogue's handlers take the
 * handler names. Hand-written handlers on the module are kept and combine:
 *
 * - a raw `callTool` / `getPrompt` / `readResource` serves what no definition
 *   names (a disabled definition is still the definition's: unknown);
 * - a raw list handler's items follow the defined ones (on the last page when
 *   paging), minus those a definition names;
 * - a raw `complete` answers references no definition has.
 *
 * What the endpoint learns about the composed handlers comes with them here
 * (`scopes`, `validatesArguments`, the catalogues' entries), never as marks
 * on the functions.
 *
 * A module without groups is served as it is.
 */
import type { AnyServerModule, HandlerContext, JsonObject } from '../server-module/contract.js'
import { HANDLER_NAMES, type HandlerName } from '../protocol/methods.js'
import type { CompleteParams } from '../protocol/schemas.js'
import { declaredScopes } from '../server-module/scopes.js'
import type { ScopeTable } from './required-scopes.js'
import { OFFERED_EXTENSIONS } from '../server-module/capabilities.js'
import { Catalog } from './catalog.js'
import { CursorSeal } from './cursor-seal.js'
import { DirectoryCursors } from './skill-directory-cursor.js'
import { createComplete } from './completion.js'
import { type DefinitionGroup, groupOfHandler, groupsOf } from './groups.js'
import { type PromptEntry, promptHandlers } from './prompts.js'
import { type ResourceEntry, resourceHandlers } from './resources.js'
import { type ToolEntry, toolHandlers } from './tools.js'
import type { SkillEntry } from './skill-entry.js'
import { checkSkillNesting } from './skill-nesting.js'
import { skillHandlers } from './skill-serving.js'
import { FST_MCP_DUPLICATE_DEFINITION, FST_MCP_INVALID_SERVER } from '../errors.js'
import type { ArgumentBounds } from './validation.js'

export interface Composition {
  /** The module to serve (the given one when it holds no groups). */
  readonly module: AnyServerModule
  /** One catalogue per kind a group (even an empty one) was given for. */
  readonly tools: Catalog<ToolEntry> | undefined
  readonly prompts: Catalog<PromptEntry> | undefined
  readonly resources: Catalog<ResourceEntry> | undefined
  readonly skills: Catalog<SkillEntry> | undefined
  /** Whether `completion/complete` is served (so completers can be added at runtime). */
  readonly completes: boolean
  /**
   * The scopes each call needs, by handler name: a definition's `scopes` for
   * the call that names it, else what the raw handler declares with
   * `REQUIRED_SCOPES` (read once, here). Authorization reads this, not the handlers.
   */
  readonly scopes: Readonly<ScopeTable>
  /**
   * Handlers that validate their own arguments and run the preHandler hooks
   * themselves once they are valid (defined tools and prompts: `afterValidation`,
   * lib/hooks/pre-handler.ts); for any other the endpoint runs the hooks first.
   */
  readonly validatesArguments: ReadonlySet<HandlerName>
}

type AnyHandler = (params: any, ctx: HandlerContext) => unknown

/** A hand-written handler of `server`; undefined for none or a group's own. */
function rawHandler (server: object, name: string): AnyHandler | undefined {
  const value = (server as Record<string, unknown>)[name]
  return typeof value !== 'function' || groupOfHandler(value) !== undefined ? undefined : value as AnyHandler
}

/** What the raw handlers of `server` declare with `REQUIRED_SCOPES`, read once. */
function declaredScopeTable (server: object): ScopeTable {
  const table: ScopeTable = {}
  for (const name of HANDLER_NAMES) {
    const requirement = declaredScopes(rawHandler(server, name))
    if (requirement !== undefined) table[name] = requirement
  }
  return table
}

const VALIDATE_NOTHING: ReadonlySet<HandlerName> = new Set()

/**
 * A subscribe to a resource needs what reading it needs, unless the module
 * declares otherwise: an update notification tells a subscriber that the
 * resource exists and when it changes. (An unsubscribe needs nothing.)
 */
function subscribeNeedsRead (scopes: ScopeTable): Readonly<ScopeTable> {
  if (scopes.subscribeResource === undefined && scopes.readResource !== undefined) scopes.subscribeResource = scopes.readResource
  return Object.freeze(scopes)
}

/**
 * A define result's handler taken out of its result (`{ callTool: tools.callTool }`) would be served without
 * its group: alone it would be served outside the catalogue, beside another group dropped. Refused, with the fix.
 */
function checkGroupHandlers (server: object, groups: readonly DefinitionGroup[]): void {
  for (const name of HANDLER_NAMES) {
    const group = groupOfHandler((server as Record<string, unknown>)[name])
    if (group === undefined || groups.includes(group)) continue
    throw new FST_MCP_INVALID_SERVER(`"${name}" is the handler of a define result (${group.origin}) without that result: spread the whole result into the server module (\`{ ...define${group.kind[0]?.toUpperCase()}${group.kind.slice(1)}(...) }\`) so its definitions join the endpoint's catalogue`)
  }
}

function catalogOf<E extends ToolEntry | PromptEntry | ResourceEntry | SkillEntry> (groups: DefinitionGroup[], kind: DefinitionGroup['kind'], noun: string, seal: CursorSeal): Catalog<E> | undefined {
  const own = groups.filter((g) => g.kind === kind)
  if (own.length === 0) return undefined
  const catalog = new Catalog<E>(noun, seal)
  for (const group of own) {
    for (const entry of group.entries) catalog.add(entry as E)
  }
  return catalog
}

/**
 * `withTools`: a tools catalogue even when the module defines none (tools made from routes join it at ready).
 * `cursorSecrets`: what list and directory cursors are sealed with (the deployment's `requestState.secret`), so a cursor one
 * instance issued opens on the others; without, a random key of this process.
 * `bounds`: the endpoint's bounds on a call's arguments (`limits.maxArgumentValues`).
 */
export function composeServer (server: AnyServerModule, pageSize: number | undefined, withTools = false, cursorSecrets?: readonly Buffer[], bounds?: ArgumentBounds): Composition {
  const groups = groupsOf(server)
  checkGroupHandlers(server, groups)
  const scopes = declaredScopeTable(server)
  if (groups.length === 0 && !withTools) {
    return { module: server, tools: undefined, prompts: undefined, resources: undefined, skills: undefined, completes: false, scopes: subscribeNeedsRead(scopes), validatesArguments: VALIDATE_NOTHING }
  }
  const seal = new CursorSeal(cursorSecrets)
  const tools = catalogOf<ToolEntry>(groups, 'tools', 'tool', seal) ?? (withTools ? new Catalog<ToolEntry>('tool', seal) : undefined)
  const prompts = catalogOf<PromptEntry>(groups, 'prompts', 'prompt', seal)
  const resources = catalogOf<ResourceEntry>(groups, 'resources', 'resource', seal)
  const skills = catalogOf<SkillEntry>(groups, 'skills', 'skill', seal)

  // The module's own handlers first (bound), then the catalogues' over the names they serve.
  const module: Record<string, unknown> = {}
  for (const name of HANDLER_NAMES) {
    const raw = rawHandler(server, name)
    if (raw !== undefined) module[name] = raw.bind(server)
  }
  const declared = (server as { capabilities?: unknown }).capabilities
  if (declared !== undefined) module.capabilities = typeof declared === 'function' ? declared.bind(server) : declared
  // Extensions the groups offer (MCP Apps) stay with the module the capabilities are built from.
  const offered = (server as { [OFFERED_EXTENSIONS]?: unknown })[OFFERED_EXTENSIONS]
  if (offered !== undefined) Object.defineProperty(module, OFFERED_EXTENSIONS, { value: offered, enumerable: true })
  const raw = { ...module } as Record<string, AnyHandler>
  const validatesArguments = new Set<HandlerName>()
  if (tools !== undefined) {
    Object.assign(module, toolHandlers(tools, raw, pageSize, bounds, scopes))
    validatesArguments.add('callTool')
  }
  if (prompts !== undefined) {
    Object.assign(module, promptHandlers(prompts, raw, pageSize, bounds, scopes))
    validatesArguments.add('getPrompt')
  }
  if (resources !== undefined) Object.assign(module, resourceHandlers(resources, raw, pageSize, scopes))
  if (skills !== undefined) {
    if (resources !== undefined) checkSkillUris(skills, resources)
    checkSkillNesting(skills)
    // Skill files are read before the module's resources, which keep their scopes and completers.
    Object.assign(module, skillHandlers(skills, { ...raw, readResource: module.readResource as AnyHandler | undefined, listResources: module.listResources as ((params?: JsonObject, ctx?: HandlerContext) => unknown) | undefined }, pageSize, scopes, new DirectoryCursors(cursorSecrets)))
  }

  const anyCompleters = (prompts?.names().some((n) => prompts.entry(n)?.completers !== undefined) ?? false) ||
    (resources?.names().some((n) => resources.entry(n)?.completers !== undefined) ?? false)
  const rawComplete = raw.complete
  if (anyCompleters || rawComplete !== undefined) {
    const definedComplete = createComplete(module)
    module.complete = rawComplete === undefined
      ? definedComplete
      : function complete (params: CompleteParams, ctx: HandlerContext) {
        // A reference a definition has is completed from it; anything else by the hand-written handler.
        const ref = params.ref as JsonObject | undefined
        const defined = (ref?.type === 'ref/prompt' && typeof ref.name === 'string' && prompts?.has(ref.name) === true) ||
          (ref?.type === 'ref/resource' && typeof ref.uri === 'string' && resources?.hasKey(ref.uri) === true)
        return defined ? definedComplete.call(module, params, ctx) : rawComplete(params, ctx)
      }
  }
  return { module: module as AnyServerModule, tools, prompts, resources, skills, completes: module.complete !== undefined, scopes: subscribeNeedsRead(scopes), validatesArguments }
}

/** A skill's file and a defined resource may not share a URI (the skill's would hide the resource). */
export function checkSkillUris (skills: Catalog<SkillEntry>, resources: Catalog<ResourceEntry>, only?: SkillEntry): void {
  for (const name of only === undefined ? skills.names() : [only.name]) {
    const entry = only ?? skills.entry(name) as SkillEntry
    const uris = entry.files === undefined ? [entry.key] : [...entry.files.values()].map((f) => f.uri)
    for (const uri of uris) {
      if (!resources.hasKey(uri)) continue
      // Only on a clash: the resource's name, for the message.
      const resource = resources.entry(resources.names().find((n) => resources.entry(n)?.key === uri) ?? '')
      throw new FST_MCP_DUPLICATE_DEFINITION(`URI ${uri}`, `resource "${resource?.name ?? uri}" (${resource?.origin ?? 'defineResources'})`, `skill "${entry.name}" (${entry.origin})`)
    }
  }
}
