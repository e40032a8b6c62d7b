/**
 * `Mcp-Param-{Name}` headers (2026-07-28): a tool may mark string, integer
 * and boolean parameters with `x-mcp-header` so clients mirror their values
 * into headers for intermediaries. The server that executes the body must
 * check that every such header agrees with the arguments (HeaderMismatch,
 * -32020), so what a load balancer routed on is what the tool runs with.
 *
 * The annotations come from the module's own `listTools`, called with the
 * request's ctx. When to call it (`validate.paramHeaders`):
 * - `'always'`: on every modern tools/call;
 * - `'never'`: not at all (no validation);
 * - `'auto'` (default): when the request carries an `Mcp-Param-*` header, or
 *   when this endpoint does not yet know that the tool list has no
 *   annotations. The first tools/call walks the whole list; if no tool
 *   declares `x-mcp-header`, later calls without `Mcp-Param-*` headers skip
 *   the lookup. Once any annotation is seen, every tools/call is checked.
 *   Exact for tool lists whose annotations do not vary per request; use
 *   `'always'` when some callers see annotated tools and others do not.
 * The map derived from a deeply frozen `listTools` result is cached with the
 * result, so a static tool list costs one handler call and a map lookup.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { isImmutableData } from '../response/frozen-json.js'
import { INTERNAL_ERROR_OUTCOME, type Outcome, invokeHandler } from '../handler/invoke.js'
import { isJsonObject } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { moduleMethod } from '../protocol/methods.js'
import { whenSettled } from '../common/maybe-promise.js'
import { decodeHeaderValue } from './request-headers.js'
import type { ParamHeaderMode } from '../options.js'
import type { HandlerContext, JsonObject, AnyServerModule } from '../server-module/contract.js'
import { describe, quote } from '../protocol/describe.js'
import type { Catalog } from '../definitions/catalog.js'
import type { ToolEntry } from '../definitions/tools.js'

const HEADER_PREFIX = 'mcp-param-'
/** RFC 9110 token (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** RFC 9110 field value characters we accept: visible ASCII, space, tab. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/
const INTEGER_TEXT = /^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/
const PRIMITIVE_TYPES = new Set(['string', 'integer', 'boolean'])
/** Keywords whose values are data, not subschemas. */
const DATA_KEYWORDS = new Set(['const', 'default', 'enum', 'examples'])
/** Bounds on what one tool's schema walk and one lookup may cost. */
const MAX_SCHEMA_NODES = 10_000
const MAX_PAGES = 100
const MAX_LOGGED_PROBLEMS = 1000

/** One valid annotation: the header (lower case) and the property path it mirrors. */
export interface ParamHeader {
  readonly header: string
  readonly label: string
  readonly path: readonly string[]
}

export interface DerivedHeaders {
  /** Tool name -> its valid annotations (tools without any are absent). */
  readonly tools: ReadonlyMap<string, readonly ParamHeader[]>
  /** Why annotations were ignored, one line each, naming the tool. */
  readonly problems: readonly string[]
}

function pathText (path: readonly string[]): string {
  return path.length === 0 ? 'the schema root' : `"${path.join('.')}"`
}

/** Why a property's `type` cannot carry a header, or undefined when it can. */
function typeProblem (type: unknown): string | undefined {
  const types = Array.isArray(type) ? type.filter((t) => t !== 'null') : [type]
  if (types.length === 1 && PRIMITIVE_TYPES.has(types[0] as string)) return undefined
  return `type must be "string", "integer" or "boolean" (got ${JSON.stringify(type) ?? 'none'})`
}

/** The annotations of one input schema; anything invalid is reported in `problems` and left out. */
export function annotationsOf (tool: string, schema: unknown, problems: string[]): ParamHeader[] {
  const found: ParamHeader[] = []
  const labels = new Map<string, string>()
  const ancestors = new Set<object>()
  let nodes = 0

  function annotate (node: JsonObject, path: readonly string[] | null): void {
    const value = node['x-mcp-header']
    const report = (why: string): void => {
      problems.push(`tool ${JSON.stringify(tool)}: x-mcp-header ${JSON.stringify(value)} at ${path === null ? 'a location' : pathText(path)}: ${why}`)
    }
    if (path === null || path.length === 0) return report('only properties reachable from the root through "properties" alone may be annotated')
    if (typeof value !== 'string' || !TOKEN.test(value)) return report('must be a non-empty HTTP token (no spaces, control or separator characters)')
    const why = typeProblem(node.type)
    if (why !== undefined) return report(why)
    const header = HEADER_PREFIX + value.toLowerCase()
    const taken = labels.get(header)
    if (taken !== undefined) return report(`duplicates ${JSON.stringify(taken)} (names are case-insensitive)`)
    labels.set(header, value)
    found.push({ header, label: `Mcp-Param-${value}`, path })
  }

  // path: the chain of `properties` keys to this node, or null off such a chain.
  function walk (node: unknown, path: readonly string[] | null): void {
    if (node === null || typeof node !== 'object' || ancestors.has(node) || ++nodes > MAX_SCHEMA_NODES) return
    ancestors.add(node)
    if (Array.isArray(node)) {
      for (const item of node) walk(item, null)
    } else {
      const object = node as JsonObject
      if (Object.hasOwn(object, 'x-mcp-header')) annotate(object, path)
      for (const key of Object.keys(object)) {
        if (DATA_KEYWORDS.has(key)) continue
        const child = object[key]
        if (key === 'properties' && path !== null && isJsonObject(child)) {
          for (const name of Object.keys(child)) walk(child[name], [...path, name])
        } else {
          walk(child, null)
        }
      }
    }
    ancestors.delete(node)
  }

  walk(schema, [])
  if (nodes > MAX_SCHEMA_NODES) problems.push(`tool ${JSON.stringify(tool)}: input schema too large to check past ${MAX_SCHEMA_NODES} nodes`)
  return found
}

/** The annotations of every tool in a `tools/list` result. */
export function deriveParamHeaders (result: JsonObject): DerivedHeaders {
  const tools = new Map<string, readonly ParamHeader[]>()
  const problems: string[] = []
  const list = result.tools
  for (const tool of Array.isArray(list) ? list : []) {
    if (!isJsonObject(tool) || typeof tool.name !== 'string' || tools.has(tool.name)) continue
    const found = annotationsOf(tool.name, tool.inputSchema, problems)
    if (found.length > 0) tools.set(tool.name, found)
  }
  return { tools, problems }
}

function valueAt (args: unknown, path: readonly string[]): unknown {
  let value = args
  for (const key of path) {
    if (!isJsonObject(value) || !Object.hasOwn(value, key)) return undefined
    value = value[key]
  }
  return value
}

function matches (text: string, value: unknown): boolean {
  if (typeof value === 'string') return text === value
  // Integers compare numerically, so "42.0" matches 42.
  if (typeof value === 'number') return INTEGER_TEXT.test(text) && Number(text) === value
  if (typeof value === 'boolean') return text === String(value)
  return false
}

/**
 * Returns a description of the first disagreement between the `Mcp-Param-*`
 * headers a tool declares and its arguments, or undefined when they agree.
 * A value that is null or absent needs no header; a header sent anyway
 * disagrees with the body.
 */
export function findParamHeaderMismatch (headers: IncomingHttpHeaders, annotations: readonly ParamHeader[], args: unknown): string | undefined {
  for (const { header, label, path } of annotations) {
    const raw = headers[header]
    const value = valueAt(args, path)
    const absent = value === undefined || value === null
    if (raw === undefined) {
      if (absent) continue
      return `Header mismatch: ${label} header is required: the arguments carry a value at ${pathText(path)}`
    }
    const text = Array.isArray(raw) ? raw.join(', ') : raw
    if (!FIELD_VALUE.test(text)) return `Header mismatch: ${label} header contains invalid characters`
    const decoded = decodeHeaderValue(text)
    if (decoded === undefined) return `Header mismatch: ${label} header has a malformed base64 value`
    if (absent) return `Header mismatch: ${label} header is present but the arguments carry no value at ${pathText(path)}`
    if (!matches(decoded, value)) {
      return `Header mismatch: ${label} header ${quote(decoded)} does not match body value ${describe(value)}`
    }
  }
  return undefined
}

/**
 * Whether the request carries any `Mcp-Param-*` header. Node's own headers
 * are read from their raw name/value list (an array walk: no `for…in` over
 * the headers dictionary on every call, the commonest request having none);
 * headers a hook replaced are walked as given.
 */
function hasParamHeader (headers: IncomingHttpHeaders, raw: IncomingMessage): boolean {
  if (headers !== raw.headers) {
    for (const name in headers) if (name.startsWith(HEADER_PREFIX)) return true
    return false
  }
  const list = raw.rawHeaders
  for (let i = 0; i < list.length; i += 2) {
    const name = list[i] as string
    // raw names keep the client's case: the 5th and 6th characters ("pa") rule out Mcp-Protocol-Version and the rest cheaply
    if (name.length >= HEADER_PREFIX.length && (name.charCodeAt(4) | 32) === 112 && (name.charCodeAt(5) | 32) === 97 &&
      name.slice(0, HEADER_PREFIX.length).toLowerCase() === HEADER_PREFIX) return true
  }
  return false
}

type Lookup = { ok: true, annotations: readonly ParamHeader[] } | { ok: false }
const NONE_FOUND: readonly ParamHeader[] = Object.freeze([])
const NONE: Lookup = Object.freeze({ ok: true, annotations: NONE_FOUND })
const LIST_METHOD = moduleMethod('tools/list')!

/** One per endpoint: checks modern tools/call requests before the tool runs. */
export class ParamHeaderValidator {
  readonly #server: AnyServerModule
  readonly #mode: ParamHeaderMode
  /** Whether any listed tool declares x-mcp-header; undefined until a whole list was seen. */
  #annotated: boolean | undefined
  readonly #frozen = new WeakMap<object, DerivedHeaders>()
  readonly #logged = new Set<string>()

  /** The defined tools (the composition's catalogue), whose entries answer without a list walk. */
  readonly #tools: Catalog<ToolEntry> | undefined
  readonly #single = new WeakMap<object, readonly ParamHeader[]>()

  constructor (server: AnyServerModule, mode: ParamHeaderMode, tools?: Catalog<ToolEntry>) {
    this.#server = server
    this.#mode = mode
    this.#tools = tools
    if (typeof server.listTools !== 'function') this.#annotated = false
  }

  /**
   * Runs `invoke(entry, params, ctx)` unless the request's `Mcp-Param-*` headers disagree with its
   * arguments (the arguments are passed on, not captured, so a call costs no closure).
   */
  guard<E, C extends HandlerContext> (entry: E, params: JsonObject, ctx: C, invoke: (entry: E, params: JsonObject, ctx: C) => Outcome | Promise<Outcome>): Outcome | Promise<Outcome> {
    const { headers } = ctx.request
    if (this.#mode === 'never') return invoke(entry, params, ctx)
    const name = params.name as string
    // Defined tools: the catalogue entry's listed tool, as it is now (runtime changes included), no list walk;
    // one the catalogue knows but does not serve (disabled) is answered by the tool call itself.
    if (this.#tools?.has(name) === true) {
      const tool = this.#tools.get(name)
      if (tool === undefined) return invoke(entry, params, ctx)
      const annotations = this.#annotationsOf(tool.listed as JsonObject, ctx)
      if (annotations.length === 0) return invoke(entry, params, ctx)
      const mismatch = findParamHeaderMismatch(headers, annotations, params.arguments)
      return mismatch === undefined ? invoke(entry, params, ctx) : { ok: false, code: ErrorCode.HeaderMismatch, message: mismatch }
    }
    if (this.#mode === 'auto' && this.#annotated === false && !hasParamHeader(headers, ctx.request.raw)) return invoke(entry, params, ctx)
    return whenSettled(this.#lookup(name, params._meta, ctx, undefined, 0), (found): Outcome | Promise<Outcome> => {
      if (!found.ok) return INTERNAL_ERROR_OUTCOME
      const mismatch = findParamHeaderMismatch(headers, found.annotations, params.arguments)
      return mismatch === undefined ? invoke(entry, params, ctx) : { ok: false, code: ErrorCode.HeaderMismatch, message: mismatch }
    })
  }

  /** Pages through listTools until the tool turns up. */
  #lookup (name: string, meta: unknown, ctx: HandlerContext, cursor: string | undefined, page: number): Lookup | Promise<Lookup> {
    const params: JsonObject = isJsonObject(meta) ? { _meta: meta } : {}
    if (cursor !== undefined) params.cursor = cursor
    return whenSettled(invokeHandler(this.#server, LIST_METHOD, params, ctx), (outcome): Lookup | Promise<Lookup> => {
      if (!outcome.ok) {
        ctx.logger.error({ code: outcome.code, message: outcome.message }, 'MCP listTools failed while checking Mcp-Param headers')
        return { ok: false }
      }
      const derived = this.#derive(outcome.result, ctx)
      if (derived.tools.size > 0) this.#annotated = true
      const annotations = derived.tools.get(name)
      if (annotations !== undefined) return { ok: true, annotations }
      const next = outcome.result.nextCursor
      if (typeof next === 'string' && page + 1 < MAX_PAGES) return this.#lookup(name, meta, ctx, next, page + 1)
      // The whole list, first page to last, without an annotation.
      if (this.#annotated === undefined && typeof next !== 'string') this.#annotated = false
      return NONE
    })
  }

  /** The annotations of one listed (frozen) tool, derived once per tool object. */
  #annotationsOf (tool: JsonObject, ctx: HandlerContext): readonly ParamHeader[] {
    let annotations = this.#single.get(tool)
    if (annotations === undefined) {
      const derived = this.#derive({ tools: [tool] }, ctx)
      annotations = derived.tools.get(tool.name as string) ?? NONE_FOUND
      this.#single.set(tool, annotations)
    }
    return annotations
  }

  #derive (result: JsonObject, ctx: HandlerContext): DerivedHeaders {
    let derived = this.#frozen.get(result)
    if (derived !== undefined) return derived
    derived = deriveParamHeaders(result)
    if (isImmutableData(result)) this.#frozen.set(result, derived)
    for (const problem of derived.problems) {
      if (this.#logged.has(problem) || this.#logged.size >= MAX_LOGGED_PROBLEMS) continue
      this.#logged.add(problem)
      ctx.logger.warn({ problem }, 'MCP tool definition has an invalid x-mcp-header annotation; it is not enforced and clients drop the tool')
    }
    return derived
  }
}
