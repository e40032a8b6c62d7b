/**
 * A route-backed tools/call: the arguments become a request that runs
 * through Fastify's own lifecycle in this process (light-my-request into
 * `fastify.routing`, no socket), so the route's hooks, validation,
 * serializers, decorators and error handler apply exactly as for an HTTP
 * client; its answer becomes the tool result.
 *
 * The request reaches only the route the tool was made from: the router is
 * asked first (a path its arguments make that another route would serve is
 * refused without a request), and the request itself is checked on the
 * route that serves it (lib/routes/inner-request.ts).
 *
 * What of the MCP request reaches the route is only what the `routes`
 * option asks for (`forwardHeaders`, `headers(ctx)`), its Host, and the
 * client's address (`request.ip`). The answer is read as a stream and the
 * request aborted once it passes `maxResponseBytes`. An answer
 *
 * - 2xx: the JSON body as `structuredContent` (with an output schema: a JSON
 *   object, or any JSON value when wrapped as `{ result }`) and as text; an
 *   image or audio body as such a block; other bodies as text;
 * - 4xx: a tool execution error (`isError`) carrying the route's error message,
 *   under `security.toolErrors: 'mask'` too (that masks what a handler throws; this is
 *   what the route tells any HTTP client on purpose);
 * - 5xx (and 3xx): a tool execution error without the route's text, which is logged.
 */
import { STATUS_CODES } from 'node:http'
import type { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { InjectOptions } from 'light-my-request'
import { loadOnFirstUse } from '../common/load-on-first-use.js'
import type { CallToolResult } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { isPlainObject } from '../definitions/plain.js'
import { type InnerCall, markInnerRequest } from './inner-request.js'
import { badPathValue, fillPath } from './route-path.js'
import type { RoutePlan } from './route-tool.js'

/** Characters of a route's error message kept in a tool error. */
const ERROR_TEXT_CHARS = 4096

const lightMyRequest = loadOnFirstUse<typeof import('light-my-request')>('light-my-request')

export interface RouteCallSettings {
  /** Headers of the MCP request copied onto the route's request (lower case). */
  readonly forwardHeaders: readonly string[]
  /** Headers computed per call. */
  readonly headers: ((ctx: HandlerContext) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>) | undefined
  /** Largest answer body passed on from a route, in bytes (the route's request is aborted once its answer passes it). */
  readonly maxResponseBytes: number
}

function toolError (text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

function asText (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** `GET /items/:id`, or `no route` for the not-found handler. */
function routeName (method: string | undefined, url: string | undefined): string {
  return url === undefined ? 'no route (the not-found handler)' : `route ${method ?? ''} ${url}`.replace('  ', ' ')
}

/**
 * Whether the router serves `path` with the tool's own route: it must give
 * back exactly the tool's path parameters with the values put in (another
 * route gives other names or values, a too-long value no match or a catch-all).
 */
function routerAgrees (fastify: FastifyInstance, plan: RoutePlan, path: string, values: Readonly<Record<string, string>>): boolean {
  const found = fastify.findRoute({ method: plan.method as 'GET', url: path })
  if (found === null) return false
  const params = found.params as Record<string, string | undefined>
  const names = Object.keys(params)
  return names.length === plan.path.params.length && plan.path.params.every((name) => params[name] === values[name])
}

/** The body of `stream`, or undefined once it passes `max` bytes (the caller aborts the request then). */
async function readCapped (stream: Readable, max: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream) {
    size += (chunk as Buffer).length
    if (size > max) return undefined
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks, size)
}

export function createRouteCaller (fastify: FastifyInstance, settings: RouteCallSettings) {
  // loaded now, at registration, so the first route tool call does not pay for it
  const { inject } = lightMyRequest()
  return async function callRoute (plan: RoutePlan, args: Record<string, unknown>, ctx: HandlerContext): Promise<CallToolResult> {
    const pathValues: Record<string, string> = {}
    const query: Record<string, string | string[]> = {}
    const headers: Record<string, string> = {}
    let body: Record<string, unknown> | unknown = plan.sendsBody && plan.bodyArgument === undefined ? {} : undefined
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined) continue
      switch (plan.parts.get(key) ?? 'body') {
        case 'params': pathValues[key] = String(value); break
        case 'querystring':
          // A querystring holds strings: arrays repeat the key, anything else is its text.
          if (value === null) break
          query[key] = Array.isArray(value) ? value.map(asText) : asText(value)
          break
        case 'headers': if (value !== null) headers[key] = asText(value); break
        case 'body':
          if (plan.bodyArgument !== undefined) body = value
          else (body as Record<string, unknown>)[key] = value
      }
    }
    for (const param of plan.path.params) {
      // Checked before the call already; kept here so no caller of this function can skip it.
      const bad = badPathValue(plan.path, param, pathValues[param] ?? '')
      if (bad !== undefined) return toolError(`Invalid arguments for tool "${plan.tool}": ${bad}`)
    }
    // Identity and other headers the deployment chose to pass on; the arguments' own headers cannot override them.
    for (const name of settings.forwardHeaders) {
      const value = ctx.request.headers[name]
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
    }
    if (settings.headers !== undefined) Object.assign(headers, await settings.headers(ctx))
    headers['user-agent'] ??= 'fastify-mcp-capabilities'
    // The host the MCP client addressed: routes that pick a tenant by Host see the caller's.
    headers.host = ctx.request.host
    let payload: string | undefined
    if (plan.sendsBody && body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] = 'application/json'
    }

    const path = fillPath(plan.path, pathValues)
    // The router's own answer first: a path another route would serve makes no request at all. (A route with
    // constraints is matched by what its request derives, which the router cannot be asked about here.)
    if (!plan.constrained && !routerAgrees(fastify, plan, path, pathValues)) {
      return toolError(`Invalid arguments for tool "${plan.tool}": the path they make (${clip(path)}) is served by another route than ${plan.method} ${plan.url}`)
    }

    // The handler's signal stops the route's request while it runs; once answered, later aborts (the endpoint
    // releases its signal when the MCP request ends) must not reach a request already done.
    const stop = new AbortController()
    const onAbort = (): void => stop.abort(ctx.signal.reason)
    if (ctx.signal.aborted) return toolError(`The call of tool "${plan.tool}" was cancelled`)
    ctx.signal.addEventListener('abort', onAbort, { once: true })
    const call: InnerCall = { info: { tool: plan.tool, outerRequest: ctx.request }, route: plan.route, served: undefined }
    let raw: Buffer | undefined
    let status: number
    let type: string
    try {
      const response = await inject((req, res) => {
        markInnerRequest(req, call)
        fastify.routing(req, res)
      }, {
        method: plan.method as 'GET',
        url: path,
        query,
        headers,
        payload,
        remoteAddress: ctx.request.ip,
        signal: stop.signal,
        // Read as it comes: a huge or endless answer is cut at maxResponseBytes, not buffered first.
        payloadAsStream: true,
        // The options are ours and well-formed: light-my-request's per-call schema check of them is skipped.
        validate: false
      } as InjectOptions)
      status = response.statusCode
      type = String(response.headers['content-type'] ?? '')
      raw = await readCapped(response.stream() as Readable, settings.maxResponseBytes)
      // Past the cap: the route's request is aborted (its stream, if any, is destroyed with it).
      if (raw === undefined) stop.abort(new Error('maxResponseBytes'))
    } finally {
      ctx.signal.removeEventListener('abort', onAbort)
    }
    const where = { tool: plan.tool, method: plan.method, url: plan.url, status }
    const served = call.served
    if (served === undefined || !served.own) {
      // 421 from the route check, or a request no hook of the plugin saw (refused before routing, or a route
      // in a context the plugin's hooks do not reach): its answer is never passed on.
      const other = served === undefined ? 'no route the plugin checks' : routeName(served.method, served.url)
      ctx.logger.error({ ...where, servedBy: other }, 'MCP route-backed tool: the request did not reach the tool\'s route')
      return toolError(`The call of tool "${plan.tool}" was refused: its request reached ${other}, not ${plan.method} ${plan.url}`)
    }
    if (raw === undefined) {
      ctx.logger.warn({ ...where, maxResponseBytes: settings.maxResponseBytes }, 'MCP route-backed tool: the route answered more than maxResponseBytes')
      return toolError(`The answer of tool "${plan.tool}" is larger than ${settings.maxResponseBytes} bytes`)
    }
    const text = raw.toString('utf8')
    if (status >= 200 && status < 300) return success(plan, status, type, raw, text, ctx)
    if (status >= 400 && status < 500) return toolError(clientErrorText(status, type, text))
    // A server fault or a redirect: the client learns the status only; the route's text goes to the log.
    ctx.logger.error({ ...where, body: text.slice(0, ERROR_TEXT_CHARS) }, 'MCP route-backed tool: the route answered with an error')
    return toolError(status >= 500 ? `The tool "${plan.tool}" failed (HTTP ${status})` : `The tool "${plan.tool}" got an unexpected answer (HTTP ${status})`)
  }
}

function clip (text: string): string {
  return text.length > 200 ? text.slice(0, 200) + '…' : text
}

/** `HTTP 404 Not Found: user 7 does not exist` from Fastify's error shape, else the body's text. */
function clientErrorText (status: number, type: string, text: string): string {
  let message: string | undefined
  if (/json/i.test(type)) {
    try {
      const parsed = JSON.parse(text) as { message?: unknown }
      if (typeof parsed?.message === 'string') message = parsed.message
    } catch {}
  }
  if (message === undefined && /^text\//i.test(type)) message = text
  const head = `HTTP ${status} ${STATUS_CODES[status] ?? ''}`.trim()
  const full = message === undefined || message === '' ? head : `${head}: ${message}`
  return full.length > ERROR_TEXT_CHARS ? full.slice(0, ERROR_TEXT_CHARS) + '…' : full
}

function success (plan: RoutePlan, status: number, type: string, raw: Buffer, text: string, ctx: HandlerContext): CallToolResult {
  if (plan.output !== undefined) {
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch {
      ctx.logger.error({ tool: plan.tool, status, type }, 'MCP route-backed tool: the route declared a JSON response schema but did not answer JSON')
      return toolError(`The tool "${plan.tool}" failed (its answer is not the JSON it declares)`)
    }
    if (plan.output === 'object' && !isPlainObject(value)) {
      // An array, null or a bare value (a string payload skips the serializer) is not the object the schema lists.
      ctx.logger.error({ tool: plan.tool, status, type }, 'MCP route-backed tool: the route declared an object response schema but did not answer a JSON object')
      return toolError(`The tool "${plan.tool}" failed (its answer is not the JSON object it declares)`)
    }
    const structured = (plan.output === 'wrapped' ? { result: value } : value) as JsonObject
    return { content: [{ type: 'text', text }], structuredContent: structured }
  }
  if (raw.length === 0) return { content: [] }
  const mimeType = type.split(';')[0]?.trim().toLowerCase() ?? ''
  if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data: raw.toString('base64'), mimeType }] }
  if (mimeType.startsWith('audio/')) return { content: [{ type: 'audio', data: raw.toString('base64'), mimeType }] }
  return { content: [{ type: 'text', text }] }
}
