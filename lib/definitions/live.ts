/**
 * `fastify.mcp.tools`, `.prompts` and `.resources`: a running server adds,
 * replaces, removes, disables and enables definitions by name, with the
 * checks and typing of registration. Every change is served from the next
 * request and told to this instance's listen streams (`list_changed`; a
 * replaced resource also `resources/updated`), a shared one once it settled.
 *
 * Behind a load balancer each instance has its own catalogue:
 * - `remove`, `disable` and `enable` travel on the event bus, so every
 *   instance applies them; the promise they return resolves once every
 *   other instance confirmed it (confirmed-changes.ts), and rejects when the
 *   bus could not take it or an instance stayed silent (this instance has
 *   applied it all the same). Every instance tells its own streams once
 *   the change settled, so a client that re-lists is served the new list
 *   wherever the balancer sends it (settled-notices.ts);
 * - `add` and `update` carry code, which cannot travel: run the same call on
 *   every instance (from shared configuration, say); each tells its own streams.
 */
import { FST_MCP_NOT_ADVERTISED, FST_MCP_UNKNOWN_DEFINITION } from '../errors.js'
import type { DefinitionChange, DefinitionList, ListName } from '../parts/event-bus.js'
import type { Catalog, CatalogEntry } from './catalog.js'
import { checkSkillUris, type Composition } from './compose.js'
import type { SkillDefinition, SkillEntry } from './skill-entry.js'
import { checkSkillNesting } from './skill-nesting.js'
import { compileSkillEntry } from './skills.js'
import { callerOrigin } from './groups.js'
import { compilePromptEntry, type PromptDefinition } from './prompts.js'
import { compileResourceEntry, type ResourceDefinition } from './resources.js'
import { compileToolEntry, type ToolDefinition } from './tools.js'
import type { Checked } from './schema-types.js'

/** What every kind's runtime handle offers. */
export interface LiveDefinitions {
  /** Removes `name` on every instance sharing the event bus; resolves once every other instance confirmed it. */
  remove (name: string): Promise<void>
  /** Hides `name` (neither listed nor served) on every instance; resolves once every other instance confirmed it. */
  disable (name: string): Promise<void>
  /** Serves `name` again on every instance; resolves once every other instance confirmed it. */
  enable (name: string): Promise<void>
  /** Whether `name` is defined here (enabled or not). */
  has (name: string): boolean
  isEnabled (name: string): boolean
  /** The names defined here, in list order. */
  names (): string[]
}

export interface LiveTools extends LiveDefinitions {
  /** Adds a tool on this instance (run it on every instance); a name already defined fails. */
  add<const I = undefined, const O = undefined> (name: string, tool: ToolDefinition<I, O> & { input?: Checked<I>, output?: Checked<O> }): void
  /** Replaces the tool named `name` on this instance, keeping its place and enabled state. */
  update<const I = undefined, const O = undefined> (name: string, tool: ToolDefinition<I, O> & { input?: Checked<I>, output?: Checked<O> }): void
}

export interface LivePrompts extends LiveDefinitions {
  add<const A = undefined> (name: string, prompt: PromptDefinition<A>): void
  update<const A = undefined> (name: string, prompt: PromptDefinition<A>): void
}

export interface LiveResources extends LiveDefinitions {
  add<const T = undefined> (name: string, resource: ResourceDefinition<T>): void
  update<const T = undefined> (name: string, resource: ResourceDefinition<T>): void
}

/**
 * Skills by path (`acme/billing/refunds`). A change tells listen streams
 * that the resources changed (a skill's files are resources; the extension
 * has no notification of its own) and that each of its files was updated.
 * `update` reads a skill folder again: how a changed file on disk is served.
 */
export interface LiveSkills extends LiveDefinitions {
  add (path: string, skill: SkillDefinition): void
  update (path: string, skill: SkillDefinition): void
}

/** What the endpoint provides: the bus and this instance's streams. */
export interface LiveHooks {
  /** Runs `applyHere` at once, then publishes the change for the other instances; resolves once they confirmed it, rejects when they could not. */
  share (list: DefinitionList, name: string, change: DefinitionChange, applyHere: () => void): Promise<void>
  /** Tells this instance's streams. */
  listChanged (list: ListName): void
  resourceUpdated (uri: string): void
}

const NOT_DEFINED = {
  tools: 'put a `defineTools({})` (even an empty one) in the server module at registration to serve tools added later',
  prompts: 'put a `definePrompts({})` (even an empty one) in the server module at registration to serve prompts added later',
  resources: 'put a `defineResources({})` (even an empty one) in the server module at registration to serve resources added later',
  skills: 'put a `defineSkills({})` (even an empty one) in the server module at registration to serve skills added later'
} as const

export interface LiveCatalogs {
  readonly tools: LiveTools
  readonly prompts: LivePrompts
  readonly resources: LiveResources
  readonly skills: LiveSkills
  /** Applies a change heard on the bus; true when it changed this instance's catalogue. */
  apply (list: DefinitionList, name: string, change: DefinitionChange): boolean
}

/** The URIs a skill serves (each told `resources/updated` when the skill changes). */
function skillUris (entry: CatalogEntry | undefined): string[] {
  const skill = entry as SkillEntry | undefined
  if (skill === undefined) return []
  return skill.files === undefined ? [skill.key] : [...skill.files.values()].map((f) => f.uri)
}

export function createLiveCatalogs (composition: Composition, hooks: LiveHooks): LiveCatalogs {
  const catalogs: Record<DefinitionList, Catalog<CatalogEntry> | undefined> = {
    tools: composition.tools,
    prompts: composition.prompts,
    resources: composition.resources,
    skills: composition.skills
  }

  /** What listen streams hear of a change to `list`: skills are resources to them. */
  function told (list: DefinitionList, before: CatalogEntry | undefined, after: CatalogEntry | undefined): void {
    if (list !== 'skills') {
      hooks.listChanged(list)
      return
    }
    hooks.listChanged('resources')
    for (const uri of new Set([...skillUris(before), ...skillUris(after)])) hooks.resourceUpdated(uri)
  }

  function catalogFor (list: DefinitionList, what: string): Catalog<CatalogEntry> {
    const catalog = catalogs[list]
    if (catalog === undefined) throw new FST_MCP_NOT_ADVERTISED(what, `the server module defined no ${list} at registration, so the ${list} capability is not advertised; ${NOT_DEFINED[list]}`)
    return catalog
  }

  function apply (list: DefinitionList, name: string, change: DefinitionChange): boolean {
    const catalog = catalogs[list]
    if (catalog === undefined) return false
    const entry = catalog.entry(name)
    const changed = change === 'remove' ? catalog.remove(name) !== undefined : catalog.setEnabled(name, change === 'enable')
    if (changed) told(list, entry, undefined)
    return changed
  }

  function common (list: DefinitionList): LiveDefinitions {
    const shared = (change: DefinitionChange) => (name: string): Promise<void> => {
      const catalog = catalogFor(list, `${list}`)
      if (typeof name !== 'string' || !catalog.has(name)) throw new FST_MCP_UNKNOWN_DEFINITION(`${catalog.kind} "${String(name)}"`)
      // Applied here at once (inside share, which holds what it tells), whatever the bus does; the bus brings it to the others.
      return hooks.share(list, name, change, () => { apply(list, name, change) })
    }
    return {
      remove: shared('remove'),
      disable: shared('disable'),
      enable: shared('enable'),
      has: (name) => catalogs[list]?.has(name) ?? false,
      isEnabled: (name) => catalogs[list]?.isEnabled(name) ?? false,
      names: () => catalogs[list]?.names() ?? []
    }
  }

  /** add/update of one kind: compile with the registration checks, then change the catalogue. */
  function changer<D> (list: DefinitionList, compile: (name: string, definition: D, origin: string) => CatalogEntry) {
    function checkCompletion (entry: CatalogEntry, name: string): void {
      if ((entry as { completers?: unknown }).completers !== undefined && !composition.completes) {
        throw new FST_MCP_NOT_ADVERTISED(`"${name}" with completers`, 'completion/complete is not advertised (no definition had completers at registration and the module has no `complete`)')
      }
    }
    function add (name: string, definition: D): void {
      const catalog = catalogFor(list, `${list} ("${String(name)}")`)
      const entry = compile(name, definition, callerOrigin(`fastify.mcp.${list}.add`, add))
      checkCompletion(entry, name)
      checkSkill(list, entry)
      catalog.add(entry)
      told(list, undefined, entry)
    }
    function update (name: string, definition: D): void {
      const catalog = catalogFor(list, `${list} ("${String(name)}")`)
      if (!catalog.has(name)) throw new FST_MCP_UNKNOWN_DEFINITION(`${catalog.kind} "${String(name)}"`)
      const entry = compile(name, definition, callerOrigin(`fastify.mcp.${list}.update`, update))
      checkCompletion(entry, name)
      checkSkill(list, entry)
      const before = catalog.replace(entry)
      if (list === 'skills') {
        if (catalog.isEnabled(name)) told(list, before, entry)
        return
      }
      hooks.listChanged(list)
      // A static resource replaced: what a read returns may have changed, for its old URI and its new one.
      if (list === 'resources' && catalog.isEnabled(name)) {
        const uris = new Set([before, entry].filter((e) => e.view === 'resources').map((e) => e.key as string))
        for (const uri of uris) hooks.resourceUpdated(uri)
      }
    }
    return { add, update }
  }

  /** A skill's files may not take a defined resource's URI, nor lie in a dynamic skill's folder (skill-nesting.ts). */
  function checkSkill (list: DefinitionList, entry: CatalogEntry): void {
    if (list !== 'skills' || composition.skills === undefined) return
    if (composition.resources !== undefined) checkSkillUris(composition.skills, composition.resources, entry as SkillEntry)
    checkSkillNesting(composition.skills, entry as SkillEntry)
  }

  return {
    tools: Object.freeze({ ...common('tools'), ...changer('tools', compileToolEntry) }) as LiveTools,
    prompts: Object.freeze({ ...common('prompts'), ...changer('prompts', compilePromptEntry) }) as LivePrompts,
    resources: Object.freeze({ ...common('resources'), ...changer('resources', compileResourceEntry) }) as LiveResources,
    skills: Object.freeze({ ...common('skills'), ...changer('skills', compileSkillEntry) }) as LiveSkills,
    apply
  }
}
