/**
 * One route as a tool definition of the tools catalogue (so listing,
 * filterLists, scopes, duplicates and `fastify.mcp.tools.*` apply to it as
 * to any defined tool):
 *
 * - `inputSchema`: the path parameters, querystring properties, the body
 *   (its properties spread, or one argument) and the headers the route asks
 *   for, merged into one object schema; a key in two parts fails registration.
 * - `outputSchema`: the route's 2xx response schema (when its 2xx answers
 *   share one), an object schema as is, any other wrapped as `{ result }`.
 * - description from `config.mcp`, else the route's `description`, else its `summary`.
 *
 * The arguments are only sorted into request parts here: validating them is
 * the route's job, with its own schemas, coercion and error messages.
 */
import { FST_MCP_INVALID_ROUTE_TOOL, FST_MCP_ROUTE_ARGUMENT_COLLISION } from '../errors.js'
import { checkDefinition, checkListed, deepFreeze, isPlainObject, SCOPES } from '../definitions/plain.js'
import { defaultsOptional } from '../definitions/listed-defaults.js'
import { compiledTool, TOOL_NAME, type ToolEntry } from '../definitions/tools.js'
import { Invalid, type Validator } from '../definitions/validation.js'
import { Tool, type ToolAnnotations } from '../protocol/schemas.js'
import type { HandlerContext } from '../server-module/contract.js'
import type { CheckedRouteTool } from './route-config.js'
import { badPathValue, parsePath, type PathPattern } from './route-path.js'
import { type JsonSchema, listedSchema, type SharedSchemas, UnresolvedRef } from './route-schema.js'

export type RequestPart = 'params' | 'querystring' | 'body' | 'headers'

/** A route as `onRoute` saw it, kept until `ready`. */
export interface CollectedRoute {
  readonly method: string
  readonly url: string
  readonly schema: Record<string, unknown> | undefined
  readonly mcp: CheckedRouteTool
  /** Whether the route has routing constraints (version, host, ...). */
  readonly constrained: boolean
}

/** What a call needs to turn arguments into a request. */
export interface RoutePlan {
  readonly tool: string
  readonly method: string
  /** The route's path pattern, prefix included. */
  readonly url: string
  /** The route, as its config's ROUTE_TOOL key names it (lib/routes/inner-request.ts). */
  readonly route: CollectedRoute
  /** Whether the route has routing constraints (the router cannot be asked about its path beforehand). */
  readonly constrained: boolean
  readonly path: PathPattern
  /** Which request part each argument goes to. */
  readonly parts: ReadonlyMap<string, RequestPart>
  /** The argument holding the whole body, when the body is one argument. */
  readonly bodyArgument: string | undefined
  /** Whether a JSON body is sent (the route has a body schema and takes it). */
  readonly sendsBody: boolean
  /** Arguments no part names go to the spread body (its schema allows more properties). */
  readonly extrasToBody: boolean
  /** With an output schema: whether a non-object answer is wrapped as `{ result }`. */
  readonly output: 'object' | 'wrapped' | undefined
}

export type RouteHandler = (plan: RoutePlan, args: Record<string, unknown>, ctx: HandlerContext) => Promise<unknown>

/** Hints an HTTP method implies (a route's own annotations win). */
function methodHints (method: string): ToolAnnotations {
  switch (method) {
    case 'GET': return { readOnlyHint: true }
    case 'PUT': return { readOnlyHint: false, destructiveHint: false, idempotentHint: true }
    case 'DELETE': return { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
    default: return { readOnlyHint: false, destructiveHint: false }
  }
}

/** `get_users_by_id` for `GET /users/:id`. */
export function defaultToolName (method: string, url: string): string {
  const words = url.split('/').filter((s) => s !== '').map((segment) =>
    segment.replace(/::/g, ':').replace(/\*/g, 'wildcard').replace(/:([A-Za-z0-9_$]+)(\((?:\\.|[^)])*\))?/g, 'by_$1'))
  const name = [method.toLowerCase(), ...words].join('_').replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/_+/g, '_').replace(/_$/, '')
  return name.slice(0, 128)
}

function properties (schema: JsonSchema | undefined): { props: Record<string, unknown>, required: string[], additional: unknown } {
  if (schema === undefined) return { props: {}, required: [], additional: true }
  const props = isPlainObject(schema.properties) ? schema.properties : {}
  const required = Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []
  return { props, required, additional: schema.additionalProperties ?? true }
}

/** Keywords an object schema may have and still be spread into the arguments without losing a constraint. */
const SPREADABLE = new Set(['type', 'properties', 'required', 'additionalProperties', 'title', 'description', 'examples'])

function isSpreadable (schema: JsonSchema): boolean {
  return schema.type === 'object' && Object.keys(schema).every((k) => SPREADABLE.has(k))
}

/** The 2xx response schema all 2xx answers share, or undefined. */
function successSchema (response: unknown, shared: SharedSchemas, where: string): unknown {
  if (!isPlainObject(response)) return undefined
  const found: string[] = []
  let schema: unknown
  for (const [code, value] of Object.entries(response)) {
    if (!/^(2\d\d|2xx)$/i.test(code)) continue
    let raw = value
    // The `content` form: the JSON media type's schema.
    if (isPlainObject(value) && isPlainObject(value.content)) {
      const json = Object.entries(value.content).find(([type]) => /json/i.test(type))
      raw = json === undefined ? undefined : (json[1] as { schema?: unknown }).schema
    }
    if (raw === undefined) continue
    const listed = listedSchema(raw, shared, `${where} response ${code}`)
    const text = JSON.stringify(listed)
    if (!found.includes(text)) found.push(text)
    schema = listed
  }
  return found.length === 1 ? schema : undefined
}

/** The route's tool: its catalogue entry, with `handler` running the route for each call. */
export function routeToolEntry (route: CollectedRoute, shared: SharedSchemas, handler: RouteHandler): ToolEntry {
  const where = `${route.method} ${route.url}`
  const mcp = route.mcp
  const schema = route.schema ?? {}
  try {
    return build()
  } catch (err) {
    if (err instanceof UnresolvedRef) throw new FST_MCP_INVALID_ROUTE_TOOL(where, err.message)
    throw err
  }

  function build (): ToolEntry {
    const name = mcp.name ?? (typeof schema.operationId === 'string' ? schema.operationId : defaultToolName(route.method, route.url))
    if (!TOOL_NAME.test(name)) throw new FST_MCP_INVALID_ROUTE_TOOL(where, `the tool name "${name}" is not 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "." (set config.mcp.name)`)
    const path = parsePath(route.url)
    const part = (key: string): JsonSchema | undefined => {
      const value = key === 'querystring' ? schema.querystring ?? schema.query : schema[key]
      if (value === undefined) return undefined
      const listed = listedSchema(value, shared, `${where} ${key}`)
      return isPlainObject(listed) ? listed : undefined
    }
    const props: Record<string, unknown> = {}
    const required = new Set<string>()
    const parts = new Map<string, RequestPart>()
    const add = (key: string, value: unknown, into: RequestPart, isRequired: boolean): void => {
      const other = parts.get(key)
      if (other !== undefined) throw new FST_MCP_ROUTE_ARGUMENT_COLLISION(where, key, other, into)
      parts.set(key, into)
      if (into === 'params') {
        // Always required: the URL cannot be made without it.
        props[key] = value
        required.add(key)
        return
      }
      // A property with a `default` may be left out, at any depth: the route's validator (Fastify's Ajv, useDefaults) fills it in.
      props[key] = defaultsOptional(value)
      if (isRequired && !(isPlainObject(value) && Object.hasOwn(value, 'default'))) required.add(key)
    }

    // Path parameters: from the params schema, every one the path names (a string when the schema has none).
    if (mcp.params === false && path.params.length > 0) throw new FST_MCP_INVALID_ROUTE_TOOL(where, 'config.mcp.params: false, but the path needs its parameters')
    const params = properties(part('params'))
    for (const param of path.params) add(param, params.props[param] ?? { type: 'string' }, 'params', true)

    if (mcp.querystring !== false) {
      const query = properties(part('querystring'))
      for (const [key, value] of Object.entries(query.props)) add(key, value, 'querystring', query.required.includes(key))
    }

    let bodyArgument: string | undefined
    let extrasToBody = false
    const bodySchema = schema.body === undefined || mcp.body === false ? undefined : listedSchema(schema.body, shared, `${where} body`)
    if (bodySchema !== undefined) {
      if (typeof mcp.body === 'string' || !isPlainObject(bodySchema) || !isSpreadable(bodySchema)) {
        bodyArgument = typeof mcp.body === 'string' ? mcp.body : 'body'
        add(bodyArgument, bodySchema, 'body', true)
      } else {
        const body = properties(bodySchema)
        for (const [key, value] of Object.entries(body.props)) add(key, value, 'body', body.required.includes(key))
        extrasToBody = body.additional !== false
      }
    }

    if (mcp.headers.length > 0) {
      const headers = properties(part('headers'))
      const byLower = new Map(Object.keys(headers.props).map((k) => [k.toLowerCase(), k]))
      const requiredLower = new Set(headers.required.map((r) => r.toLowerCase()))
      for (const header of mcp.headers) {
        const own = byLower.get(header)
        add(header, own === undefined ? { type: 'string' } : headers.props[own], 'headers', requiredLower.has(header))
      }
    }

    const inputSchema: JsonSchema = { type: 'object', properties: props }
    if (required.size > 0) inputSchema.required = [...required]
    if (extrasToBody) {
      const additional = (bodySchema as JsonSchema).additionalProperties
      if (additional !== undefined && additional !== true) inputSchema.additionalProperties = additional
    } else {
      inputSchema.additionalProperties = false
    }

    const tool: Record<string, unknown> = { name }
    const title = mcp.title ?? (typeof schema.summary === 'string' && typeof schema.description === 'string' ? schema.summary : undefined)
    if (title !== undefined) tool.title = title
    const description = mcp.description ?? (typeof schema.description === 'string' ? schema.description : typeof schema.summary === 'string' ? schema.summary : undefined)
    if (description !== undefined) tool.description = description
    tool.inputSchema = inputSchema
    const success = successSchema(schema.response, shared, where)
    let output: RoutePlan['output']
    if (success !== undefined) {
      output = isPlainObject(success) && success.type === 'object' ? 'object' : 'wrapped'
      tool.outputSchema = output === 'object' ? success : { type: 'object', properties: { result: success }, required: ['result'] }
    }
    tool.annotations = { ...methodHints(route.method), ...mcp.annotations }
    if (mcp.icons !== undefined) tool.icons = mcp.icons
    if (mcp._meta !== undefined) tool._meta = mcp._meta
    checkListed(Tool, tool, `tool "${name}" (route ${where})`, 'Tool')
    const { scopes } = checkDefinition({ scopes: SCOPES }, { scopes: mcp.scopes }, `tool "${name}"`)

    const plan: RoutePlan = {
      tool: name,
      method: route.method,
      url: route.url,
      route,
      constrained: route.constrained,
      path,
      parts,
      bodyArgument,
      sendsBody: bodySchema !== undefined,
      extrasToBody,
      output
    }
    deepFreeze(tool)
    return {
      name,
      listed: tool,
      json: JSON.stringify(tool),
      view: 'tools',
      origin: `route ${where}`,
      scopes,
      compiled: compiledTool(name, argumentCheck(plan), undefined, (args: Record<string, unknown>, ctx: HandlerContext) => handler(plan, args, ctx))
    }
  }
}

/** A header field value: tab, visible ASCII, space and obs-text. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

/**
 * The only check made before the route runs: the arguments are an object,
 * every path parameter is there and fits its place, header values are
 * field values an HTTP client could send, and no argument is unknown (it
 * would have no request part to go to). The route validates the rest.
 */
function argumentCheck (plan: RoutePlan): Validator {
  const problems = (value: unknown): string[] => {
    if (!isPlainObject(value)) return ['arguments: expected an object']
    const lines: string[] = []
    for (const param of plan.path.params) {
      const arg = value[param]
      if (arg === undefined || arg === null) lines.push(`${param}: required property missing`)
      else if (typeof arg === 'object') lines.push(`${param}: expected a string, number or boolean`)
      else {
        const bad = badPathValue(plan.path, param, String(arg))
        if (bad !== undefined) lines.push(bad)
      }
    }
    for (const [key, part] of plan.parts) {
      const arg = value[key]
      // A header value an HTTP client could send (RFC 9110 field-value; Node's own check): no CR, LF, NUL or other control.
      if (part === 'headers' && arg !== undefined && arg !== null && !FIELD_VALUE.test(typeof arg === 'string' ? arg : JSON.stringify(arg))) {
        lines.push(`${key}: a header value cannot hold control characters (CR, LF, NUL, ...) or characters beyond U+00FF`)
      }
    }
    if (!plan.extrasToBody) {
      for (const key of Object.keys(value)) {
        if (!plan.parts.has(key)) lines.push(`${key.length > 64 ? key.slice(0, 64) + '…' : key}: unknown argument`)
      }
    }
    return lines
  }
  return {
    validate: (value: unknown): unknown => {
      const lines = problems(value)
      return lines.length === 0 ? value : new Invalid(lines)
    }
  }
}
