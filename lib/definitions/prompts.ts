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
import { type Completer, createComplete, withCompleters } from './completion.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { checkListed, checkScopes, copyFields, deepFreeze, isPlainObject, optionalString } from './plain.js'
import { type ScopeRequirement, withRequiredScopes } from './required-scopes.js'
import { adaptSchema } from './schema-adapter.js'
import type { Checked, InferObject, ObjectSchema } from './schema-types.js'
import { isThenable } from './thenable.js'
import { Invalid, type Validator } from './validation.js'
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

interface CompiledPrompt {
  readonly name: string
  readonly args: Validator
  readonly handler: (args: any, ctx: HandlerContext) => PromptReturn | Promise<PromptReturn>
}

const NO_ARGUMENTS: ObjectSchema = { type: 'object', properties: {} }

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
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt "${prompt.name}": ${listProblems(args.problems)}`)
  }
  const result = prompt.handler(args, ctx)
  return isThenable(result) ? Promise.resolve(result).then(asResult) : asResult(result)
}

/**
 * Defines prompts by name: `{ summarise: { arguments: Type.Object({ id: Type.String() }), handler: ({ id }) => '...' } }`.
 * Spread the result into a server module.
 */
export function definePrompts<const A extends { [K in keyof A]: unknown }> (prompts: { [K in keyof A]: PromptDefinition<A[K]> }): DefinedPrompts {
  if (!isPlainObject(prompts)) throw new FST_MCP_INVALID_DEFINITION('prompts', 'expected an object of prompt definitions by name')
  const listed: Prompt[] = []
  const table = new Map<string, CompiledPrompt>()
  const scopes = new Map<string, readonly string[]>()
  const completers = new Map<string, Readonly<Record<string, Completer>>>()
  for (const name of Object.keys(prompts)) {
    const where = `prompt "${name}"`
    const definition = (prompts as Record<string, PromptDefinition>)[name] as PromptDefinition
    if (!isPlainObject(definition)) throw new FST_MCP_INVALID_DEFINITION(where, 'expected an object { arguments?, handler, ... }')
    if (typeof definition.handler !== 'function') throw new FST_MCP_INVALID_DEFINITION(where, '"handler" is not a function')
    optionalString(definition.title, where, 'title')
    optionalString(definition.description, where, 'description')
    const schema = adaptSchema(definition.arguments ?? NO_ARGUMENTS, { where: `${where} (arguments)`, root: 'arguments', direction: 'input' })
    const prompt: Record<string, unknown> = { name }
    copyFields(definition as Record<string, unknown>, prompt, ['title', 'description'], where)
    const args = listedArguments(schema.listed, `${where} (arguments)`)
    if (args.length > 0) prompt.arguments = args
    copyFields(definition as Record<string, unknown>, prompt, ['icons', '_meta'], where)
    checkListed(Prompt, prompt, where, 'Prompt')
    if (definition.complete !== undefined) {
      if (!isPlainObject(definition.complete)) throw new FST_MCP_INVALID_DEFINITION(where, '"complete" must be an object of completers by argument name')
      const own: Record<string, Completer> = Object.create(null)
      for (const [argument, completer] of Object.entries(definition.complete)) {
        if (!args.some((a) => a.name === argument)) throw new FST_MCP_INVALID_DEFINITION(where, `"complete" names "${argument}", which is not one of its arguments`)
        if (typeof completer !== 'function') throw new FST_MCP_INVALID_DEFINITION(where, `the completer of "${argument}" is not a function`)
        own[argument] = completer as Completer
      }
      completers.set(name, Object.freeze(own))
    }
    const required = checkScopes(definition.scopes, where)
    if (required !== undefined) scopes.set(name, required)
    listed.push(prompt as Prompt)
    table.set(name, { name, args: schema.validator, handler: definition.handler })
  }
  const list = deepFreeze({ prompts: listed }) as ListPromptsResult

  function getPrompt (params: GetPromptParams, ctx: HandlerContext): GetPromptResult | Promise<GetPromptResult> {
    const name = params.name
    const prompt = typeof name === 'string' ? table.get(name) : undefined
    if (prompt === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${mention(name)}`)
    const args = prompt.args.validate(params.arguments === undefined ? {} : params.arguments)
    return isThenable(args) ? Promise.resolve(args).then((settled) => run(prompt, settled, ctx)) : run(prompt, args, ctx)
  }

  const requirement: ScopeRequirement | undefined = scopes.size === 0
    ? undefined
    : (params) => typeof params.name === 'string' ? scopes.get(params.name) : undefined
  const defined: DefinedPrompts = {
    listPrompts: () => list,
    getPrompt: withCompleters(withRequiredScopes(getPrompt, requirement), 'ref/prompt', completers)
  }
  if (completers.size > 0) defined.complete = createComplete(defined)
  return defined
}
