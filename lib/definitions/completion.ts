/**
 * `completion/complete` built from the completers of defined prompt arguments
 * and template variables. `definePrompts` and `defineResources` each return a
 * `complete`; whichever one a module ends up with reads the completers of the
 * module's own `getPrompt` and `readResource` (its `this`), so spreading both
 * results into one module completes both kinds of reference.
 */
import { mention } from '../protocol/describe.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import type { HandlerContext } from '../server-module/contract.js'
import type { CompleteParams, CompleteResult } from '../protocol/schemas.js'

/** Most values one completion result may carry (the spec's limit). */
export const MAX_COMPLETION_VALUES = 100

export interface CompletionContext {
  /** Arguments (or template variables) the client already resolved. */
  readonly arguments: Readonly<Record<string, string>>
  readonly ctx: HandlerContext
}

/**
 * Given what the user typed so far, the candidate values (already filtered:
 * the completer decides what matches). More than 100 are cut to 100 with
 * `hasMore: true` and the full `total`.
 */
export type Completer = (value: string, context: CompletionContext) => readonly string[] | Promise<readonly string[]>

/** Completers by reference (prompt name or template URI), then by argument name. */
export type CompleterTable = ReadonlyMap<string, Readonly<Record<string, Completer>>>

export const COMPLETERS: unique symbol = Symbol('fastify-mcp-capabilities.completers')

interface CompleterSource {
  [COMPLETERS]?: { kind: 'ref/prompt' | 'ref/resource', table: CompleterTable }
}

function tableOf (handler: unknown, kind: 'ref/prompt' | 'ref/resource'): CompleterTable | undefined {
  if (typeof handler !== 'function') return undefined
  const source = (handler as CompleterSource)[COMPLETERS]
  return source?.kind === kind ? source.table : undefined
}

/** Marks a `getPrompt` / `readResource` with its completers. */
export function withCompleters<H extends object> (handler: H, kind: 'ref/prompt' | 'ref/resource', table: CompleterTable): H {
  Object.defineProperty(handler, COMPLETERS, { value: { kind, table }, enumerable: false })
  return handler
}

function resultOf (values: readonly unknown[]): CompleteResult {
  const strings = values.filter((v): v is string => typeof v === 'string')
  return strings.length > MAX_COMPLETION_VALUES
    ? { completion: { values: strings.slice(0, MAX_COMPLETION_VALUES), total: strings.length, hasMore: true } }
    : { completion: { values: strings, total: strings.length, hasMore: false } }
}

/**
 * A `complete` handler. `own` are the completers of the define call that made
 * it, used when it is called without its module (`this`).
 */
export function createComplete (own: { getPrompt?: unknown, readResource?: unknown }) {
  return function complete (this: unknown, params: CompleteParams, ctx: HandlerContext): CompleteResult | Promise<CompleteResult> {
    const module = (this !== null && typeof this === 'object' ? this : own) as { getPrompt?: unknown, readResource?: unknown }
    const ref = params.ref as { type?: unknown, name?: unknown, uri?: unknown } | undefined
    const argument = params.argument as { name?: unknown, value?: unknown } | undefined
    if (ref === undefined || argument === undefined || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "ref" and "argument" { name, value } are required')
    }
    let entry: Readonly<Record<string, Completer>> | undefined
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') {
      entry = (tableOf(module.getPrompt, 'ref/prompt') ?? tableOf(own.getPrompt, 'ref/prompt'))?.get(ref.name)
      if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${mention(ref.name)}`)
    } else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      entry = (tableOf(module.readResource, 'ref/resource') ?? tableOf(own.readResource, 'ref/resource'))?.get(ref.uri)
      if (entry === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${mention(ref.uri)}`)
    } else {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "ref" must be a ref/prompt with a name or a ref/resource with a uri')
    }
    const completer = Object.hasOwn(entry, argument.name) ? entry[argument.name] : undefined
    if (completer === undefined) return resultOf([])
    const context = params.context as { arguments?: unknown } | undefined
    const known = context?.arguments !== null && typeof context?.arguments === 'object' ? context.arguments as Record<string, string> : {}
    const values = completer(argument.value, { arguments: known, ctx })
    return Array.isArray(values) ? resultOf(values) : Promise.resolve(values).then(resultOf)
  }
}
