/**
 * `defineResources`: static resources (a fixed `uri`) and URI templates
 * (`uriTemplate`, RFC 6570 simple variables, typed from the template text),
 * each with its own `read`. Gives the module `listResources`,
 * `listResourceTemplates` and `readResource`; an unknown URI answers the
 * era's "resource not found"; variable completers feed `completion/complete`.
 */
import type { Icon } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { type Completer, type CompleterTable, createComplete, withCompleters } from './completion.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { callback, checkDefinition, checkListed, copyFields, deepFreeze, isPlainObject, LISTED, SCOPES, TEXT } from './plain.js'
import { definedOrRaw, type ScopeTable } from './required-scopes.js'
import { Catalog, type CatalogEntry } from './catalog.js'
import { attachGroup, callerOrigin } from './groups.js'
import { serveList } from './listing.js'
import { resourceNotFound } from '../protocol/mcp-error.js'
import { isThenable } from '../common/maybe-promise.js'
import { parseUriTemplate, type TemplateVariableNames, type TemplateVariables, type UriTemplate } from './uri-template.js'
import {
  type Annotations,
  type CompleteParams,
  type CompleteResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ReadResourceParams,
  type ReadResourceResult,
  Resource,
  ResourceTemplate
} from '../protocol/schemas.js'

/** A `read` answer: a whole result, or the text of the one resource read (with the definition's `mimeType`). */
export type ReadReturn = ReadResourceResult | string

/**
 * One resource (`uri`) or a family of them (`uriTemplate`). `T` is the
 * template's text, inferred literally, so `read` and `complete` know its variables.
 */
export interface ResourceDefinition<T = unknown> {
  /** A fixed, absolute URI: one resource. */
  uri?: string
  /** An RFC 6570 level 1 template (`notes://note/{id}`): a family of resources. */
  uriTemplate?: T
  title?: string
  description?: string
  mimeType?: string
  annotations?: Annotations
  icons?: Icon[]
  _meta?: JsonObject
  /** Size in bytes, when known (static resources). */
  size?: number
  /** Scopes a caller needs to read it, beyond the endpoint's. */
  scopes?: string[]
  /** Templates: concrete resources to include in `resources/list`. */
  list?: (ctx: HandlerContext) => Resource[] | Promise<Resource[]>
  /** Templates: completers of variable values, by variable name. */
  complete?: [T] extends [string] ? { [K in TemplateVariableNames<T>]?: Completer } : never
  /** Static: `read(uri, ctx)`; template: `read(variables, uri, ctx)` with the matched, decoded variables. */
  read: [T] extends [string]
    ? (variables: TemplateVariables<T>, uri: string, ctx: HandlerContext) => ReadReturn | Promise<ReadReturn>
    : (uri: string, ctx: HandlerContext) => ReadReturn | Promise<ReadReturn>
}

export interface DefinedResources {
  listResources: (params?: JsonObject, ctx?: HandlerContext) => ListResourcesResult | Promise<ListResourcesResult>
  listResourceTemplates: (params?: JsonObject, ctx?: HandlerContext) => ListResourceTemplatesResult
  readResource: (params: ReadResourceParams, ctx: HandlerContext) => ReadResourceResult | Promise<ReadResourceResult>
  /** Present when some template variable has a completer. */
  complete?: (params: CompleteParams, ctx: HandlerContext) => CompleteResult | Promise<CompleteResult>
}

const DESCRIPTIVE = ['title', 'description', 'mimeType'] as const
const EXTRA = ['annotations', 'icons', '_meta'] as const

/** What a resource definition may hold (`ResourceDefinition`); the listed fields are checked against `Resource`/`ResourceTemplate` once built. */
const RESOURCE_FIELDS = {
  uri: LISTED,
  uriTemplate: LISTED,
  title: TEXT,
  description: TEXT,
  mimeType: TEXT,
  annotations: LISTED,
  icons: LISTED,
  _meta: LISTED,
  size: LISTED,
  scopes: SCOPES,
  list: callback('a function (ctx) returning the resources of the template'),
  complete: LISTED,
  read: callback('a function returning the contents or their text', true)
}

function contentsOf (value: ReadReturn, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value !== 'string') return value
  return { contents: [mimeType === undefined ? { uri, text: value } : { uri, mimeType, text: value }] }
}

/** A compiled resource (`uri`) or template (`uriTemplate`) as the catalogue keeps it. */
export interface ResourceEntry extends CatalogEntry {
  /** Its URI, or its template's text. */
  readonly key: string
  readonly mimeType: string | undefined
  readonly scopes: readonly string[] | undefined
  /** Templates only. */
  readonly template: UriTemplate | undefined
  readonly list: ((ctx: HandlerContext) => Resource[] | Promise<Resource[]>) | undefined
  readonly completers: Readonly<Record<string, Completer>> | undefined
  readonly read: (...args: any[]) => ReadReturn | Promise<ReadReturn>
}

/** Checks and compiles one definition (the same checks at registration and at runtime). */
export function compileResourceEntry (name: string, definition: ResourceDefinition<any>, origin: string): ResourceEntry {
  const where = `resource "${name}"`
  const def = definition as Record<string, any>
  const { scopes } = checkDefinition(RESOURCE_FIELDS, definition, where)
  const mimeType = def.mimeType as string | undefined
  if (def.uri !== undefined && def.uriTemplate !== undefined) throw new FST_MCP_INVALID_DEFINITION(where, 'give either "uri" or "uriTemplate", not both')
  if (def.uri !== undefined) {
    const uri: unknown = def.uri
    if (typeof uri !== 'string' || !URL.canParse(uri)) throw new FST_MCP_INVALID_DEFINITION(where, '"uri" must be an absolute URI')
    const listed: Record<string, unknown> = { uri, name }
    copyFields(def, listed, DESCRIPTIVE, where)
    if (def.size !== undefined) listed.size = def.size
    copyFields(def, listed, EXTRA, where)
    checkListed(Resource, listed, where, 'Resource')
    deepFreeze(listed)
    return { name, listed, json: JSON.stringify(listed), view: 'resources', key: uri, origin, mimeType, scopes, template: undefined, list: undefined, completers: undefined, read: def.read }
  }
  if (def.uriTemplate === undefined) throw new FST_MCP_INVALID_DEFINITION(where, 'needs a "uri" (one resource) or a "uriTemplate" (a family of them)')
  const template = parseUriTemplate(def.uriTemplate as string, where)
  const listed: Record<string, unknown> = { uriTemplate: template.template, name }
  copyFields(def, listed, DESCRIPTIVE, where)
  copyFields(def, listed, EXTRA, where)
  checkListed(ResourceTemplate, listed, where, 'ResourceTemplate')
  let completers: Record<string, Completer> | undefined
  if (def.complete !== undefined) {
    if (!isPlainObject(def.complete)) throw new FST_MCP_INVALID_DEFINITION(where, '"complete" must be an object of completers by variable name')
    completers = Object.create(null) as Record<string, Completer>
    for (const [variable, completer] of Object.entries(def.complete)) {
      if (!template.variables.includes(variable)) throw new FST_MCP_INVALID_DEFINITION(where, `"complete" names "${variable}", which is not a variable of ${template.template}`)
      if (typeof completer !== 'function') throw new FST_MCP_INVALID_DEFINITION(where, `the completer of "${variable}" is not a function`)
      completers[variable] = completer as Completer
    }
    Object.freeze(completers)
  }
  deepFreeze(listed)
  return {
    name,
    listed,
    json: JSON.stringify(listed),
    view: 'resourceTemplates',
    key: template.template,
    origin,
    mimeType,
    scopes,
    template,
    list: def.list,
    completers,
    read: def.read
  }
}

/** Hand-written handlers served beside the definitions (bound to their module). */
export interface RawResourceHandlers {
  listResources?: (params: JsonObject, ctx: HandlerContext) => unknown
  listResourceTemplates?: (params: JsonObject, ctx: HandlerContext) => unknown
  readResource?: (params: ReadResourceParams, ctx: HandlerContext) => unknown
}

/** The enabled template matching `uri`, with its variables. */
function matchTemplate (catalog: Catalog<ResourceEntry>, uri: string): { entry: ResourceEntry, variables: Record<string, string> } | undefined {
  for (const entry of catalog.enabled('resourceTemplates')) {
    const variables = (entry.template as UriTemplate).match(uri)
    if (variables !== undefined) return { entry, variables }
  }
  return undefined
}

/**
 * The list, templates list and read of `catalog`; a URI no definition matches goes to the raw `readResource`.
 * `scopes`: the composed module's table (`readResource`'s is set here).
 */
export function resourceHandlers (catalog: Catalog<ResourceEntry>, raw: RawResourceHandlers = {}, pageSize?: number, scopes?: ScopeTable): Omit<DefinedResources, 'complete'> {
  const rawRead = raw.readResource
  function readResource (params: ReadResourceParams, ctx: HandlerContext): ReadResourceResult | Promise<ReadResourceResult> {
    const uri = params.uri
    if (typeof uri !== 'string') throw resourceNotFound(String(uri))
    const known = catalog.byKey(uri)
    let result: ReadReturn | Promise<ReadReturn>
    let mimeType: string | undefined
    if (known !== undefined && known.view === 'resources') {
      mimeType = known.mimeType
      result = known.read(uri, ctx)
    } else {
      const found = matchTemplate(catalog, uri)
      if (found === undefined) {
        if (rawRead !== undefined && !catalog.hasKey(uri)) return rawRead(params, ctx) as ReadResourceResult
        throw resourceNotFound(uri)
      }
      mimeType = found.entry.mimeType
      result = found.entry.read(found.variables, uri, ctx)
    }
    return isThenable(result)
      ? Promise.resolve(result).then((value) => contentsOf(value, uri, mimeType))
      : contentsOf(result, uri, mimeType)
  }
  if (scopes !== undefined) {
    scopes.readResource = definedOrRaw((params) => {
      // filterLists asks about a listed template by its text
      if (typeof params.uriTemplate === 'string') return catalog.byKey(params.uriTemplate)
      const uri = params.uri
      if (typeof uri !== 'string') return undefined
      const known = catalog.byKey(uri)
      if (known !== undefined && known.view === 'resources') return known
      return matchTemplate(catalog, uri)?.entry
    }, scopes.readResource)
  }
  const listing = (ctx: HandlerContext): Resource[] | Promise<Resource[]> => {
    const lists = catalog.enabled('resourceTemplates').filter((t) => t.list !== undefined)
    if (lists.length === 0) return []
    return Promise.all(lists.map((t) => (t.list as NonNullable<ResourceEntry['list']>)(ctx))).then((all) => all.flat())
  }
  const completers = {
    get: (text: string) => {
      const entry = catalog.byKey(text)
      return entry?.view === 'resourceTemplates' ? entry.completers : undefined
    }
  } as unknown as CompleterTable
  return {
    listResources: (params?: JsonObject, ctx?: HandlerContext) => {
      const anyListing = catalog.enabled('resourceTemplates').some((t) => t.list !== undefined)
      return serveList(catalog, 'resources', 'uri', params, ctx, pageSize, raw.listResources, anyListing ? listing : undefined) as ListResourcesResult | Promise<ListResourcesResult>
    },
    listResourceTemplates: (params?: JsonObject, ctx?: HandlerContext) =>
      serveList(catalog, 'resourceTemplates', 'uriTemplate', params, ctx, pageSize, raw.listResourceTemplates) as ListResourceTemplatesResult,
    readResource: withCompleters(readResource, 'ref/resource', completers)
  }
}

/**
 * Defines resources by name:
 * `{ readme: { uri: 'docs://readme', read: () => '...' }, note: { uriTemplate: 'notes://note/{id}', read: ({ id }) => ... } }`,
 * or `{ readme }` with each written by `defineResource`. Spread any number of results into a server module.
 */
export function defineResources<const T extends { [K in keyof T]: unknown }> (resources: { [K in keyof T]: ResourceDefinition<T[K]> }): DefinedResources {
  if (!isPlainObject(resources)) throw new FST_MCP_INVALID_DEFINITION('resources', 'expected an object of resource definitions by name')
  const origin = callerOrigin('defineResources', defineResources)
  const entries: ResourceEntry[] = []
  // A group checks its own duplicates at once, as it always did.
  const check = new Catalog<ResourceEntry>('resource')
  for (const name of Object.keys(resources)) {
    const entry = compileResourceEntry(name, (resources as Record<string, ResourceDefinition<any>>)[name] as ResourceDefinition<any>, origin)
    check.add(entry)
    entries.push(entry)
  }
  let own: DefinedResources | undefined
  const handlers = (): DefinedResources => {
    if (own === undefined) {
      own = resourceHandlers(check)
      if (entries.some((e) => e.completers !== undefined)) own.complete = createComplete(own)
    }
    return own
  }
  const readResource = (params: ReadResourceParams, ctx: HandlerContext) => handlers().readResource(params, ctx)
  withCompleters(readResource, 'ref/resource', {
    get: (text: string) => entries.find((e) => e.view === 'resourceTemplates' && e.key === text)?.completers
  } as unknown as CompleterTable)
  const defined = {} as DefinedResources
  Object.defineProperties(defined, {
    listResources: { value: (params?: JsonObject, ctx?: HandlerContext) => handlers().listResources(params, ctx) },
    listResourceTemplates: { value: (params?: JsonObject, ctx?: HandlerContext) => handlers().listResourceTemplates(params, ctx) },
    readResource: { value: readResource }
  })
  if (entries.some((e) => e.completers !== undefined)) {
    Object.defineProperty(defined, 'complete', { value: (params: CompleteParams, ctx: HandlerContext) => (handlers().complete as NonNullable<DefinedResources['complete']>)(params, ctx) })
  }
  return attachGroup(defined, { kind: 'resources', entries, origin })
}

/** One resource or template, typed from its template text, for a file of its own; collected by `defineResources({ name })`. */
export function defineResource<const T = undefined> (resource: ResourceDefinition<T>): ResourceDefinition<T> {
  if (!isPlainObject(resource)) throw new FST_MCP_INVALID_DEFINITION('resource', 'expected an object { uri or uriTemplate, read, ... }')
  return resource
}
