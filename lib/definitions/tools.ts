/**
 * `defineTools`: tools from schemas (TypeBox, a Standard Schema library or
 * plain JSON Schema: schema-adapter.ts). Each tool's arguments are validated
 * before its handler runs (validators compiled here, once), the handler is
 * typed from the schemas, and the module gets `listTools` (a deeply frozen
 * list, served as prepared bytes) and `callTool`.
 */
import type { FastifyInstance } from 'fastify'
import { listProblems, mention } from '../protocol/describe.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { Icon } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject, TaskCreatedResult } from '../server-module/contract.js'
import { isTaskCreated } from '../server-module/task-created.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { callback, checkDefinition, checkListed, copyFields, deepFreeze, isPlainObject, LISTED, SCOPES, TEXT } from './plain.js'
import { definedOrRaw, NEEDS_NOTHING, type ScopeTable } from './required-scopes.js'
import { Catalog, type CatalogEntry } from './catalog.js'
import { attachGroup, callerOrigin } from './groups.js'
import { serveList } from './listing.js'
import { isThenable } from '../common/maybe-promise.js'
import { hasMark, mark } from '../common/marks.js'
import { callRaw, callValidated } from './validated-call.js'
import { defaultsOptional } from './listed-defaults.js'
import { adaptSchema } from './schema-adapter.js'
import type { Checked, InferObject, InferReturn, ObjectSchema } from './schema-types.js'
import { type ArgumentBounds, declaredBodyBytes, Invalid, type Validator } from './validation.js'
import { type CallToolParams, type CallToolResult, type ContentBlock, type ListToolsResult, Tool, type ToolAnnotations } from '../protocol/schemas.js'

/** Tool names as the spec recommends them (2025-11-25): 1 to 128 of A-Z a-z 0-9 _ - . */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/

const TOOL_ERROR: unique symbol = Symbol('fastify-mcp-capabilities.toolError')

/** A tool execution error (`isError: true`): the model sees it and can correct itself. */
export interface ToolError extends CallToolResult {
  readonly isError: true
  readonly [TOOL_ERROR]: true
}

/** Answers a call with a tool execution error; works whether or not the tool declares `output`. */
export function toolError (message: string | ContentBlock[]): ToolError {
  const content: ContentBlock[] = typeof message === 'string' ? [{ type: 'text', text: message }] : message
  const result = { content, isError: true as const }
  return mark(result, TOOL_ERROR) as ToolError
}

function isToolError (value: unknown): value is ToolError {
  return hasMark(value, TOOL_ERROR)
}

/**
 * What a handler returns: the `output` shape (or a `toolError`), else a whole
 * `CallToolResult` or a string (one text block); either way, or what
 * `runAsTask` answers (its work then returns what the handler would).
 */
export type ToolReturn<O> = [O] extends [ObjectSchema] ? (InferReturn<O> & object) | ToolError | TaskCreatedResult : CallToolResult | string | TaskCreatedResult

/** The handler's arguments: typed from the input schema (no input: no arguments). */
export type ToolArguments<I> = [I] extends [ObjectSchema] ? InferObject<I> : Record<string, never>

export interface ToolDefinition<I = ObjectSchema, O = unknown> {
  title?: string
  description?: string
  /** The arguments: an object schema (TypeBox, Standard Schema with JSON Schema, or plain JSON Schema; default: no arguments). */
  input?: I
  /** The structured result: an object schema; the handler then returns data of that shape. */
  output?: O
  annotations?: ToolAnnotations
  icons?: Icon[]
  _meta?: JsonObject
  /** Scopes a caller needs for this tool, beyond the endpoint's (see lib/server-module/scopes.ts). */
  scopes?: string[]
  handler: (args: ToolArguments<I>, ctx: HandlerContext) => ToolReturn<O> | Promise<ToolReturn<O>>
}

/** What `defineTools` returns: a group of definitions to spread into a server module (see groups.ts). */
export interface DefinedTools {
  /** The group's deeply frozen list (the same object every time), for direct use. */
  listTools: (params?: JsonObject, ctx?: HandlerContext) => ListToolsResult
  callTool: (params: CallToolParams, ctx: HandlerContext) => CallToolResult | Promise<CallToolResult>
}

export interface CompiledTool {
  readonly name: string
  readonly input: Validator
  readonly output: Validator | undefined
  readonly handler: (args: any, ctx: HandlerContext) => unknown
  /** What the handler's value becomes: the tool's result (made once per tool; also applied to the value of work run as a task). */
  readonly shape: (value: unknown, ctx: HandlerContext) => CallToolResult | Promise<CallToolResult>
}

/** A compiled tool, with its result shaping. */
export function compiledTool (name: string, input: Validator, output: Validator | undefined, handler: CompiledTool['handler']): CompiledTool {
  const tool: CompiledTool = { name, input, output, handler, shape: (value, ctx) => shapeResult(tool, value, ctx) }
  return tool
}

const NO_ARGUMENTS: ObjectSchema = { type: 'object', properties: {} }

/** What a tool definition may hold (`ToolDefinition`); the listed fields are checked against `Tool` once built. */
const TOOL_FIELDS = {
  title: TEXT,
  description: TEXT,
  input: LISTED,
  output: LISTED,
  annotations: LISTED,
  icons: LISTED,
  _meta: LISTED,
  scopes: SCOPES,
  handler: callback('a function (args, ctx) returning the result', true)
}

/** The listed fields copied as given: checked against `Tool` when a definition has any. */
const UNCHECKED_FIELDS = ['annotations', 'icons', '_meta'] as const

function compileTool (name: string, definition: ToolDefinition<ObjectSchema, unknown>): { tool: Tool, json: string, compiled: CompiledTool, scopes: readonly string[] | undefined } {
  const where = `tool "${name}"`
  if (!TOOL_NAME.test(name)) throw new FST_MCP_INVALID_DEFINITION(where, 'a tool name is 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "."')
  const { scopes } = checkDefinition(TOOL_FIELDS, definition, where)
  const tool: Record<string, unknown> = { name }
  copyFields(definition as unknown as Record<string, unknown>, tool, ['title', 'description'], where)
  const input = adaptSchema(definition.input ?? NO_ARGUMENTS, { where: `${where} (input)`, root: 'arguments', direction: 'input' })
  // A defaulted argument may be left out: not listed as required.
  tool.inputSchema = input.defaults ? defaultsOptional(input.listed) : input.listed
  // the handler's own object is checked as it is: no defaults written into it
  const output = definition.output === undefined ? undefined : adaptSchema(definition.output, { where: `${where} (output)`, root: 'result', direction: 'output' })
  if (output !== undefined) tool.outputSchema = output.listed
  copyFields(definition as unknown as Record<string, unknown>, tool, UNCHECKED_FIELDS, where)
  // The other fields match `Tool` by construction (the name's pattern, TEXT, object schemas): only these need the spec's check.
  if (UNCHECKED_FIELDS.some((field) => tool[field] !== undefined)) checkListed(Tool, tool, where, 'Tool')
  // The schemas' texts are known already (JSON.stringify(JSON.parse(text)) is text): only the rest is serialised.
  const known: Record<string, string | undefined> = { inputSchema: input.defaults ? undefined : input.text, outputSchema: output?.text }
  let json = ''
  for (const key of Object.keys(tool)) {
    json += (json === '' ? '{' : ',') + JSON.stringify(key) + ':' + (known[key] ?? JSON.stringify(tool[key]))
  }
  return {
    tool: tool as Tool,
    json: json + '}',
    scopes,
    compiled: compiledTool(name, input.validator, output?.validator, definition.handler)
  }
}

function invalidArguments (tool: CompiledTool, invalid: Invalid): CallToolResult {
  return {
    content: [{ type: 'text', text: `Invalid arguments for tool "${tool.name}": ${listProblems(invalid.problems, invalid.more, invalid.stopped)}` }],
    isError: true
  }
}

/** A string answer is one text block; anything else is the handler's `CallToolResult` (checked by the endpoint). */
function asToolResult (value: unknown): CallToolResult {
  return typeof value === 'string' ? { content: [{ type: 'text', text: value }] } : value as CallToolResult
}

function structured (tool: CompiledTool, value: unknown, ctx: HandlerContext): CallToolResult | Promise<CallToolResult> {
  if (isToolError(value)) return value
  const checked = (tool.output as Validator).validate(value)
  return isThenable(checked) ? Promise.resolve(checked).then((settled) => structuredContent(tool, settled, ctx)) : structuredContent(tool, checked, ctx)
}

function structuredContent (tool: CompiledTool, checked: unknown, ctx: HandlerContext): CallToolResult {
  if (checked instanceof Invalid) {
    // The server's fault, not the caller's: details go to the log, the client gets a bare internal error.
    ctx.logger.error({ tool: tool.name, problems: checked.problems }, `MCP tool "${tool.name}" returned a result that does not match its output schema`)
    throw new McpError(ErrorCode.InternalError, 'Internal error')
  }
  // The text block carries the same JSON for clients that predate structuredContent (the spec's advice).
  return { content: [{ type: 'text', text: JSON.stringify(checked) }], structuredContent: checked as JsonObject }
}

/**
 * The tool's result from what its handler (or its work run as a task)
 * returned; the `CreateTaskResult` of `runAsTask` passes as it is (the
 * work's value is shaped when the task ends).
 */
function shapeResult (tool: CompiledTool, value: unknown, ctx: HandlerContext): CallToolResult | Promise<CallToolResult> {
  if (isTaskCreated(value)) return value as CallToolResult
  return tool.output === undefined ? asToolResult(value) : structured(tool, value, ctx)
}

/** Runs the handler on validated arguments (or answers the validation failure). */
function run (tool: CompiledTool, args: unknown, ctx: HandlerContext): CallToolResult | Promise<CallToolResult> {
  if (args instanceof Invalid) return invalidArguments(tool, args)
  const result = tool.handler(args, ctx)
  return isThenable(result) ? Promise.resolve(result).then((value) => tool.shape(value, ctx)) : tool.shape(result, ctx)
}

/** A compiled tool as the catalogue keeps it. */
export interface ToolEntry extends CatalogEntry {
  readonly compiled: CompiledTool
  readonly scopes: readonly string[] | undefined
  /** The Fastify context that serves it, when not the endpoint's (a route-backed tool: its route's), for the MCP hooks of that context. */
  readonly context?: FastifyInstance
}

/** Checks and compiles one definition (the same checks at registration and at runtime). */
export function compileToolEntry (name: string, definition: ToolDefinition<any, any>, origin: string): ToolEntry {
  const { tool, json, compiled, scopes } = compileTool(name, definition as ToolDefinition<ObjectSchema, unknown>)
  deepFreeze(tool)
  return { name, listed: tool, json, view: 'tools', origin, compiled, scopes }
}

/** Hand-written handlers served beside the definitions (bound to their module). */
export interface RawToolHandlers {
  listTools?: (params: JsonObject, ctx: HandlerContext) => unknown
  callTool?: (params: CallToolParams, ctx: HandlerContext) => unknown
}

/**
 * `listTools` and `callTool` serving `catalog`: a name the catalogue does not
 * know at all goes to the raw `callTool` (when there is one); a disabled
 * tool is unknown. Raw listed tools follow the defined ones. `bounds`: the
 * endpoint's bounds on arguments (validation.ts). `scopes`: the composed
 * module's table, given with the raw handlers' requirements; `callTool`'s
 * becomes the named tool's `scopes`, else the raw one's.
 */
export function toolHandlers (catalog: Catalog<ToolEntry>, raw: RawToolHandlers = {}, pageSize?: number, bounds?: ArgumentBounds, scopes?: ScopeTable): DefinedTools {
  const rawCall = raw.callTool
  function callTool (params: CallToolParams, ctx: HandlerContext): CallToolResult | Promise<CallToolResult> {
    const name = params.name
    const entry = typeof name === 'string' ? catalog.get(name) : undefined
    if (entry === undefined) {
      if (rawCall !== undefined && !(typeof name === 'string' && catalog.has(name))) return callRaw(ctx, params, (p) => rawCall(p, ctx)) as CallToolResult
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${mention(name)}`)
    }
    const tool = entry.compiled
    // preHandler hooks run once the arguments are valid, and may answer in the tool's place.
    return callValidated(ctx, tool.input.validate(params.arguments === undefined ? {} : params.arguments, bounds, declaredBodyBytes(ctx.request)),
      (invalid) => invalidArguments(tool, invalid), (valid) => run(tool, valid, ctx)) as CallToolResult | Promise<CallToolResult>
  }
  if (scopes !== undefined) scopes.callTool = definedOrRaw((params) => typeof params.name === 'string' ? catalog.entry(params.name) : NEEDS_NOTHING, scopes.callTool)
  return {
    listTools: (params?: JsonObject, ctx?: HandlerContext) =>
      serveList(catalog, 'tools', 'name', params, ctx, pageSize, raw.listTools) as ListToolsResult,
    callTool
  }
}

/**
 * Defines tools by name: `{ add: { input: Type.Object({ a: Type.Number(), b: Type.Number() }), handler: ({ a, b }) => ... } }`,
 * or `{ add, sub }` with each written by `defineTool` in a file of its own.
 * Spread any number of results into a server module, beside raw handlers:
 * every definition is served, and a name defined twice fails registration.
 */
export function defineTools<
  // Inferred per tool: the input schema (I) and the output schema (O) of each name.
  const I extends { [K in keyof I]: unknown },
  const O extends { [K in keyof I]: unknown }
> (tools: { [K in keyof I]: ToolDefinition<I[K], O[K]> } & { [K in keyof O]: { output?: Checked<O[K]> } } & { [K in keyof I]: { input?: Checked<I[K]> } }): DefinedTools {
  if (!isPlainObject(tools)) throw new FST_MCP_INVALID_DEFINITION('tools', 'expected an object of tool definitions by name')
  const origin = callerOrigin('defineTools', defineTools)
  const entries: ToolEntry[] = []
  for (const name of Object.keys(tools)) {
    entries.push(compileToolEntry(name, (tools as Record<string, ToolDefinition<ObjectSchema, unknown>>)[name] as ToolDefinition<ObjectSchema, unknown>, origin))
  }
  // The group's own handlers, for direct use (unit tests); the endpoint serves the composed catalogue.
  let own: DefinedTools | undefined
  const handlers = (): DefinedTools => {
    if (own === undefined) {
      const catalog = new Catalog<ToolEntry>('tool')
      for (const entry of entries) catalog.add(entry)
      own = toolHandlers(catalog)
    }
    return own
  }
  const defined = {} as DefinedTools
  Object.defineProperties(defined, {
    listTools: { value: (params?: JsonObject, ctx?: HandlerContext) => handlers().listTools(params, ctx) },
    callTool: { value: (params: CallToolParams, ctx: HandlerContext) => handlers().callTool(params, ctx) }
  })
  return attachGroup(defined, { kind: 'tools', entries, origin })
}

/**
 * One tool, typed from its schemas, for a file of its own:
 * `export const add = defineTool({ input: Type.Object({ a: Type.Number() }), handler: ({ a }) => ... })`,
 * collected by `defineTools({ add })` (or added at runtime with `fastify.mcp.tools.add('add', add)`).
 */
export function defineTool<const I = undefined, const O = undefined> (tool: ToolDefinition<I, O> & { input?: Checked<I>, output?: Checked<O> }): ToolDefinition<I, O> {
  if (!isPlainObject(tool)) throw new FST_MCP_INVALID_DEFINITION('tool', 'expected an object { input?, output?, handler, ... }')
  return tool
}
