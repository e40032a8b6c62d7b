/**
 * `defineResources`: static resources (a fixed `uri`) and URI templates
 * (`uriTemplate`, RFC 6570 simple variables, typed from the template text),
 * each with its own `read`. Gives the module `listResources`,
 * `listResourceTemplates` and `readResource`; an unknown URI answers the
 * era's "resource not found"; variable completers feed `completion/complete`.
 */
import type { Icon } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { type Completer, createComplete, withCompleters } from './completion.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { callback, checkDefinition, checkListed, copyFields, deepFreeze, isPlainObject, LISTED, SCOPES, TEXT } from './plain.js'
import { type ScopeRequirement, withRequiredScopes } from './required-scopes.js'
import { resourceNotFound } from '../protocol/mcp-error.js'
import { isThenable } from './thenable.js'
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

interface CompiledStatic {
  readonly mimeType: string | undefined
  readonly scopes: readonly string[] | undefined
  readonly read: (uri: string, ctx: HandlerContext) => ReadReturn | Promise<ReadReturn>
}

interface CompiledTemplate {
  readonly template: UriTemplate
  readonly mimeType: string | undefined
  readonly scopes: readonly string[] | undefined
  readonly list: ((ctx: HandlerContext) => Resource[] | Promise<Resource[]>) | undefined
  readonly read: (variables: Record<string, string>, uri: string, ctx: HandlerContext) => ReadReturn | Promise<ReadReturn>
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

/**
 * Defines resources by name:
 * `{ readme: { uri: 'docs://readme', read: () => '...' }, note: { uriTemplate: 'notes://note/{id}', read: ({ id }) => ... } }`.
 * Spread the result into a server module.
 */
export function defineResources<const T extends { [K in keyof T]: unknown }> (resources: { [K in keyof T]: ResourceDefinition<T[K]> }): DefinedResources {
  if (!isPlainObject(resources)) throw new FST_MCP_INVALID_DEFINITION('resources', 'expected an object of resource definitions by name')
  const listedResources: Resource[] = []
  const listedTemplates: ResourceTemplate[] = []
  const statics = new Map<string, CompiledStatic>()
  const templates: CompiledTemplate[] = []
  const completers = new Map<string, Readonly<Record<string, Completer>>>()
  let anyScopes = false

  for (const name of Object.keys(resources)) {
    const where = `resource "${name}"`
    const definition = (resources as Record<string, unknown>)[name] as Record<string, any>
    const { scopes } = checkDefinition(RESOURCE_FIELDS, definition, where)
    if (scopes !== undefined) anyScopes = true
    const mimeType = definition.mimeType as string | undefined

    if (definition.uri !== undefined && definition.uriTemplate !== undefined) throw new FST_MCP_INVALID_DEFINITION(where, 'give either "uri" or "uriTemplate", not both')
    if (definition.uri !== undefined) {
      const uri: unknown = definition.uri
      if (typeof uri !== 'string' || !URL.canParse(uri)) throw new FST_MCP_INVALID_DEFINITION(where, '"uri" must be an absolute URI')
      if (statics.has(uri)) throw new FST_MCP_INVALID_DEFINITION(where, `"${uri}" is defined twice`)
      const listed: Record<string, unknown> = { uri, name }
      copyFields(definition, listed, DESCRIPTIVE, where)
      if (definition.size !== undefined) listed.size = definition.size
      copyFields(definition, listed, EXTRA, where)
      checkListed(Resource, listed, where, 'Resource')
      listedResources.push(listed as Resource)
      statics.set(uri, { mimeType, scopes, read: definition.read as CompiledStatic['read'] })
    } else if (definition.uriTemplate !== undefined) {
      const template = parseUriTemplate(definition.uriTemplate as string, where)
      const listed: Record<string, unknown> = { uriTemplate: template.template, name }
      copyFields(definition, listed, DESCRIPTIVE, where)
      copyFields(definition, listed, EXTRA, where)
      checkListed(ResourceTemplate, listed, where, 'ResourceTemplate')
      listedTemplates.push(listed as ResourceTemplate)
      if (definition.complete !== undefined) {
        if (!isPlainObject(definition.complete)) throw new FST_MCP_INVALID_DEFINITION(where, '"complete" must be an object of completers by variable name')
        const own: Record<string, Completer> = Object.create(null)
        for (const [variable, completer] of Object.entries(definition.complete)) {
          if (!template.variables.includes(variable)) throw new FST_MCP_INVALID_DEFINITION(where, `"complete" names "${variable}", which is not a variable of ${template.template}`)
          if (typeof completer !== 'function') throw new FST_MCP_INVALID_DEFINITION(where, `the completer of "${variable}" is not a function`)
          own[variable] = completer as Completer
        }
        completers.set(template.template, Object.freeze(own))
      }
      templates.push({
        template,
        mimeType,
        scopes,
        list: definition.list as CompiledTemplate['list'],
        read: definition.read as CompiledTemplate['read']
      })
    } else {
      throw new FST_MCP_INVALID_DEFINITION(where, 'needs a "uri" (one resource) or a "uriTemplate" (a family of them)')
    }
  }

  const staticList = deepFreeze({ resources: listedResources }) as ListResourcesResult
  const templateList = deepFreeze({ resourceTemplates: listedTemplates }) as ListResourceTemplatesResult
  const listing = templates.filter((t) => t.list !== undefined)

  function listResources (_params?: JsonObject, ctx?: HandlerContext): ListResourcesResult | Promise<ListResourcesResult> {
    if (listing.length === 0) return staticList
    return Promise.all(listing.map((t) => (t.list as NonNullable<CompiledTemplate['list']>)(ctx as HandlerContext)))
      .then((lists) => ({ resources: [...staticList.resources, ...lists.flat()] }))
  }

  function readResource (params: ReadResourceParams, ctx: HandlerContext): ReadResourceResult | Promise<ReadResourceResult> {
    const uri = params.uri
    if (typeof uri !== 'string') throw resourceNotFound(String(uri))
    const known = statics.get(uri)
    let result: ReadReturn | Promise<ReadReturn>
    let mimeType: string | undefined
    if (known !== undefined) {
      mimeType = known.mimeType
      result = known.read(uri, ctx)
    } else {
      let found: { template: CompiledTemplate, variables: Record<string, string> } | undefined
      for (const template of templates) {
        const variables = template.template.match(uri)
        if (variables !== undefined) {
          found = { template, variables }
          break
        }
      }
      if (found === undefined) throw resourceNotFound(uri)
      mimeType = found.template.mimeType
      result = found.template.read(found.variables, uri, ctx)
    }
    return isThenable(result)
      ? Promise.resolve(result).then((value) => contentsOf(value, uri, mimeType))
      : contentsOf(result, uri, mimeType)
  }

  const requirement: ScopeRequirement | undefined = anyScopes
    ? (params) => {
        const uri = params.uri
        // filterLists asks about a listed template by its text
        if (typeof params.uriTemplate === 'string') return templates.find((t) => t.template.template === params.uriTemplate)?.scopes
        if (typeof uri !== 'string') return undefined
        const known = statics.get(uri)
        if (known !== undefined) return known.scopes
        return templates.find((t) => t.template.match(uri) !== undefined)?.scopes
      }
    : undefined

  const defined: DefinedResources = {
    listResources,
    listResourceTemplates: () => templateList,
    readResource: withCompleters(withRequiredScopes(readResource, requirement), 'ref/resource', completers)
  }
  if (completers.size > 0) defined.complete = createComplete(defined)
  return defined
}
