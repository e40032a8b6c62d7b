/**
 * `definePrompts`: prompts whose arguments are an object schema of string
 * properties (TypeBox, a Standard Schema library or plain JSON Schema). The listed `arguments` (name, title, description, required)
 * come from that schema, the arguments are validated before the handler
 * runs (-32602 naming each failing argument), and per-argument completers
 * feed `completion/complete`.
 */
import { listProblems, mention } from '../protocol/describe.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { Icon } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { type Completer, type CompleterTable, createComplete, withCompleters } from './completion.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { callback, checkDefinition, checkListed, copyFields, deepFreeze, isPlainObject, LISTED, SCOPES, TEXT } from './plain.js'
import { definedOrRaw, NEEDS_NOTHING, type ScopeTable } from './required-scopes.js'
import { callRaw, callValidated } from './validated-call.js'
import { Catalog, type CatalogEntry } from './catalog.js'
import { attachGroup, callerOrigin } from './groups.js'
import { serveList } from './listing.js'
import { isThenable } from '../common/maybe-promise.js'
import { defaultsOptional } from './listed-defaults.js'
import { adaptSchema } from './schema-adapter.js'
import type { Checked, InferObject, ObjectSchema } from './schema-types.js'
import { type ArgumentBounds, declaredBodyBytes, Invalid, type Validator } from './validation.js'
import { type CompleteParams, type CompleteResult, type GetPromptParams, type GetPromptResult, type ListPromptsResult, Prompt, type PromptArgument } from '../protocol/schemas.js'

/** A handler's answer: a whole result, or a text that becomes one user message. */
export type PromptReturn = GetPromptResult | string

/** The handler's arguments: typed from the arguments schema (none: no arguments). */
export type PromptArguments<A> = [A] extends [ObjectSchema] ? InferObject<A> : Record<string, never>

export interface PromptDefinition<A = ObjectSchema> {
  title?: string
  description?: string
  /** The arguments: an object schema whose properties are strings (optional ones are listed `required: false`). */
  arguments?: Checked<A>
  icons?: Icon[]
  _meta?: JsonObject
  /** Scopes a caller needs for this prompt, beyond the endpoint's. */
  scopes?: string[]
  /** Completers of argument values, by argument name. */
  complete?: { [K in keyof PromptArguments<A>]?: Completer }
  handler: (args: PromptArguments<A>, ctx: HandlerContext) => PromptReturn | Promise<PromptReturn>
}

export interface DefinedPrompts {
  listPrompts: (params?: JsonObject, ctx?: HandlerContext) => ListPromptsResult
  getPrompt: (params: GetPromptParams, ctx: HandlerContext) => GetPromptResult | Promise<GetPromptResult>
  /** Present when some argument has a completer. */
  complete?: (params: CompleteParams, ctx: HandlerContext) => CompleteResult | Promise<CompleteResult>
}

export interface CompiledPrompt {
  readonly name: string
  readonly args: Validator
  readonly handler: (args: any, ctx: HandlerContext) => PromptReturn | Promise<PromptReturn>
}

const NO_ARGUMENTS: ObjectSchema = { type: 'object', properties: {} }

/** What a prompt definition may hold (`PromptDefinition`); the listed fields are checked against `Prompt` once built. */
const PROMPT_FIELDS = {
  title: TEXT,
  description: TEXT,
  arguments: LISTED,
  icons: LISTED,
  _meta: LISTED,
  scopes: SCOPES,
  complete: LISTED,
  handler: callback('a function (args, ctx) returning the prompt or its text', true)
}

function isStringSchema (schema: unknown): boolean {
  if (!isPlainObject(schema)) return false
  if (schema.type === 'string') return true
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => typeof v === 'string')
  if (Array.isArray(schema.anyOf)) return schema.anyOf.every(isStringSchema)
  return typeof schema.const === 'string'
}

function listedArguments (plain: JsonObject, where: string): PromptArgument[] {
  if (plain.properties !== undefined && !isPlainObject(plain.properties)) {
    throw new FST_MCP_INVALID_DEFINITION(where, '"arguments" must be an object schema of string properties')
  }
  const required = new Set(Array.isArray(plain.required) ? plain.required as string[] : [])
  const properties = (plain.properties ?? {}) as Record<string, JsonObject>
  return Object.keys(properties).map((name) => {
    const property = properties[name] as JsonObject
    if (!isStringSchema(property)) throw new FST_MCP_INVALID_DEFINITION(where, `argument "${name}" must be a string schema: prompt arguments are strings`)
    const argument: PromptArgument = { name }
    if (typeof property.title === 'string') argument.title = property.title
    if (typeof property.description === 'string') argument.description = property.description
    argument.required = required.has(name)
    return argument
  })
}

function asResult (value: PromptReturn): GetPromptResult {
  return typeof value === 'string' ? { messages: [{ role: 'user', content: { type: 'text', text: value } }] } : value
}

/** Runs the handler on validated arguments (or refuses them, -32602 naming each). */
function run (prompt: CompiledPrompt, args: unknown, ctx: HandlerContext): GetPromptResult | Promise<GetPromptResult> {
  if (args instanceof Invalid) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt "${prompt.name}": ${listProblems(args.problems, args.more, args.stopped)}`)
  }
  const result = prompt.handler(args, ctx)
  return isThenable(result) ? Promise.resolve(result).then(asResult) : asResult(result)
}

/** A compiled prompt as the catalogue keeps it. */
export interface PromptEntry extends CatalogEntry {
  readonly compiled: CompiledPrompt
  readonly scopes: readonly string[] | undefined
  readonly completers: Readonly<Record<string, Completer>> | undefined
}

/** Checks and compiles one definition (the same checks at registration and at runtime). */
export function compilePromptEntry (name: string, definition: PromptDefinition<any>, origin: string): PromptEntry {
  const where = `prompt "${name}"`
  const { scopes } = checkDefinition(PROMPT_FIELDS, definition, where)
  const schema = adaptSchema(definition.arguments ?? NO_ARGUMENTS, { where: `${where} (arguments)`, root: 'arguments', direction: 'input' })
  const prompt: Record<string, unknown> = { name }
  copyFields(definition as unknown as Record<string, unknown>, prompt, ['title', 'description'], where)
  // A defaulted argument may be left out: not listed as required.
  const args = listedArguments(schema.defaults ? defaultsOptional(schema.listed) : schema.listed, `${where} (arguments)`)
  if (args.length > 0) prompt.arguments = args
  copyFields(definition as unknown as Record<string, unknown>, prompt, ['icons', '_meta'], where)
  checkListed(Prompt, prompt, where, 'Prompt')
  let completers: Record<string, Completer> | undefined
  if (definition.complete !== undefined) {
    if (!isPlainObject(definition.complete)) throw new FST_MCP_INVALID_DEFINITION(where, '"complete" must be an object of completers by argument name')
    completers = Object.create(null) as Record<string, Completer>
    for (const [argument, completer] of Object.entries(definition.complete)) {
      if (!args.some((a) => a.name === argument)) throw new FST_MCP_INVALID_DEFINITION(where, `"complete" names "${argument}", which is not one of its arguments`)
      if (typeof completer !== 'function') throw new FST_MCP_INVALID_DEFINITION(where, `the completer of "${argument}" is not a function`)
      completers[argument] = completer as Completer
    }
    Object.freeze(completers)
  }
  deepFreeze(prompt)
  return {
    name,
    listed: prompt,
    json: JSON.stringify(prompt),
    view: 'prompts',
    origin,
    compiled: { name, args: schema.validator, handler: definition.handler },
    scopes,
    completers
  }
}

/** Hand-written handlers served beside the definitions (bound to their module). */
export interface RawPromptHandlers {
  listPrompts?: (params: JsonObject, ctx: HandlerContext) => unknown
  getPrompt?: (params: GetPromptParams, ctx: HandlerContext) => unknown
}

/**
 * `listPrompts` and `getPrompt` serving `catalog`; names it does not know at all go to the raw `getPrompt`.
 * `bounds`: the endpoint's bounds on arguments. `scopes`: the composed module's table (`getPrompt`'s is set here).
 */
export function promptHandlers (catalog: Catalog<PromptEntry>, raw: RawPromptHandlers = {}, pageSize?: number, bounds?: ArgumentBounds, scopes?: ScopeTable): Omit<DefinedPrompts, 'complete'> {
  const rawGet = raw.getPrompt
  function getPrompt (params: GetPromptParams, ctx: HandlerContext): GetPromptResult | Promise<GetPromptResult> {
    const name = params.name
    const entry = typeof name === 'string' ? catalog.get(name) : undefined
    if (entry === undefined) {
      // A raw handler validates nothing: the preHandler hooks run right before it.
      if (rawGet !== undefined && !(typeof name === 'string' && catalog.has(name))) return callRaw(ctx, params, (p) => rawGet(p, ctx)) as GetPromptResult
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${mention(name)}`)
    }
    const prompt = entry.compiled
    // preHandler hooks run once the arguments are valid (an invalid set is refused by run), and may answer in the prompt's place.
    return callValidated(ctx, prompt.args.validate(params.arguments === undefined ? {} : params.arguments, bounds, declaredBodyBytes(ctx.request)),
      (invalid) => run(prompt, invalid, ctx), (valid) => run(prompt, valid, ctx)) as GetPromptResult | Promise<GetPromptResult>
  }
  if (scopes !== undefined) scopes.getPrompt = definedOrRaw((params) => typeof params.name === 'string' ? catalog.entry(params.name) : NEEDS_NOTHING, scopes.getPrompt)
  const completers = { get: (name: string) => catalog.get(name)?.completers } as unknown as CompleterTable
  return {
    listPrompts: (params?: JsonObject, ctx?: HandlerContext) =>
      serveList(catalog, 'prompts', 'name', params, ctx, pageSize, raw.listPrompts) as ListPromptsResult,
    getPrompt: withCompleters(getPrompt, 'ref/prompt', completers)
  }
}

/**
 * Defines prompts by name: `{ summarise: { arguments: Type.Object({ id: Type.String() }), handler: ({ id }) => '...' } }`,
 * or `{ summarise }` with each written by `definePrompt`. Spread any number of results into a server module.
 */
export function definePrompts<const A extends { [K in keyof A]: unknown }> (prompts: { [K in keyof A]: PromptDefinition<A[K]> }): DefinedPrompts {
  if (!isPlainObject(prompts)) throw new FST_MCP_INVALID_DEFINITION('prompts', 'expected an object of prompt definitions by name')
  const origin = callerOrigin('definePrompts', definePrompts)
  const entries: PromptEntry[] = []
  for (const name of Object.keys(prompts)) {
    entries.push(compilePromptEntry(name, (prompts as Record<string, PromptDefinition<any>>)[name] as PromptDefinition<any>, origin))
  }
  let own: DefinedPrompts | undefined
  const handlers = (): DefinedPrompts => {
    if (own === undefined) {
      const catalog = new Catalog<PromptEntry>('prompt')
      for (const entry of entries) catalog.add(entry)
      own = promptHandlers(catalog)
      if (entries.some((e) => e.completers !== undefined)) own.complete = createComplete(own)
    }
    return own
  }
  const getPrompt = (params: GetPromptParams, ctx: HandlerContext) => handlers().getPrompt(params, ctx)
  withCompleters(getPrompt, 'ref/prompt', { get: (name: string) => entries.find((e) => e.name === name)?.completers } as unknown as CompleterTable)
  const defined = {} as DefinedPrompts
  Object.defineProperties(defined, {
    listPrompts: { value: (params?: JsonObject, ctx?: HandlerContext) => handlers().listPrompts(params, ctx) },
    getPrompt: { value: getPrompt }
  })
  if (entries.some((e) => e.completers !== undefined)) {
    Object.defineProperty(defined, 'complete', { value: (params: CompleteParams, ctx: HandlerContext) => (handlers().complete as NonNullable<DefinedPrompts['complete']>)(params, ctx) })
  }
  return attachGroup(defined, { kind: 'prompts', entries, origin })
}

/** One prompt, typed from its arguments schema, for a file of its own; collected by `definePrompts({ name })`. */
export function definePrompt<const A = undefined> (prompt: PromptDefinition<A>): PromptDefinition<A> {
  if (!isPlainObject(prompt)) throw new FST_MCP_INVALID_DEFINITION('prompt', 'expected an object { arguments?, handler, ... }')
  return prompt
}
