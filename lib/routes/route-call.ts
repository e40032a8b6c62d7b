/**
 * A route-backed tools/call: the arguments become a request that runs
 * through Fastify's own lifecycle in this process (`fastify.inject`, no
 * socket), so the route's hooks, validation, serializers, decorators and
 * error handler apply exactly as for an HTTP client; its answer becomes the
 * tool result.
 *
 * What of the MCP request reaches the route is only what the `routes`
 * option asks for (`forwardHeaders`, `headers(ctx)`); the route's request
 * comes from the MCP client's address (`request.ip`). An answer
 *
 * - 2xx: the JSON body as `structuredContent` (with an output schema) and
 *   as text; an image or audio body as such a block; other bodies as text;
 * - 4xx: a tool execution error (`isError`) carrying the route's error message,
 *   under `toolErrors: 'mask'` too (that masks what a handler throws; this is
 *   what the route tells any HTTP client on purpose);
 * - 5xx (and 3xx): a tool execution error without the route's text, which is logged.
 */
import { STATUS_CODES } from 'node:http'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { CallToolResult } from '../protocol/schemas.js'
import type { HandlerContext, JsonObject } from '../server-module/contract.js'
import { badPathValue, fillPath } from './route-path.js'
import type { RoutePlan } from './route-tool.js'

/** Characters of a route's error message kept in a tool error. */
const ERROR_TEXT_CHARS = 4096

export interface RouteCallSettings {
  /** Headers of the MCP request copied onto the route's request (lower case). */
  readonly forwardHeaders: readonly string[]
  /** Headers computed per call. */
  readonly headers: ((ctx: HandlerContext) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>) | undefined
  /** Largest answer body passed on from a route, in bytes (the route's answer is buffered by inject first). */
  readonly maxResponseBytes: number
}

function toolError (text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

function asText (value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value)
}

export function createRouteCaller (fastify: FastifyInstance, settings: RouteCallSettings) {
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
      const bad = badPathValue(param, pathValues[param] ?? '')
      if (bad !== undefined) return toolError(`Invalid arguments for tool "${plan.tool}": ${bad}`)
    }
    // Identity and other headers the deployment chose to pass on; the arguments' own headers cannot override them.
    for (const name of settings.forwardHeaders) {
      const value = ctx.request.headers[name]
      if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value
    }
    if (settings.headers !== undefined) Object.assign(headers, await settings.headers(ctx))
    headers['user-agent'] ??= 'fastify-mcp-capabilities'
    let payload: string | undefined
    if (plan.sendsBody && body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] = 'application/json'
    }

    // The handler's signal stops the route's request while it runs; once answered, later aborts (the endpoint
    // releases its signal when the MCP request ends) must not reach a request already done.
    const stop = new AbortController()
    const onAbort = (): void => stop.abort(ctx.signal.reason)
    if (ctx.signal.aborted) return toolError(`The call of tool "${plan.tool}" was cancelled`)
    ctx.signal.addEventListener('abort', onAbort, { once: true })
    let response: Awaited<ReturnType<FastifyInstance['inject']>>
    try {
      response = await fastify.inject({
        method: plan.method as 'GET',
        url: fillPath(plan.path, pathValues),
        query,
        headers,
        payload,
        remoteAddress: ctx.request.ip,
        signal: stop.signal,
        // The options are ours and well-formed: light-my-request's per-call schema check of them is skipped.
        validate: false
      } as InjectOptions)
    } finally {
      ctx.signal.removeEventListener('abort', onAbort)
    }
    const raw = response.rawPayload.length > settings.maxResponseBytes ? undefined : response.rawPayload
    const status = response.statusCode
    const where = { tool: plan.tool, method: plan.method, status }
    if (raw === undefined) {
      ctx.logger.warn({ ...where, maxResponseBytes: settings.maxResponseBytes }, 'MCP route-backed tool: the route answered more than maxResponseBytes')
      return toolError(`The answer of tool "${plan.tool}" is larger than ${settings.maxResponseBytes} bytes`)
    }
    const type = String(response.headers['content-type'] ?? '')
    const text = raw.toString('utf8')
    if (status >= 200 && status < 300) return success(plan, status, type, raw, text, ctx)
    if (status >= 400 && status < 500) return toolError(clientErrorText(status, type, text))
    // A server fault or a redirect: the client learns the status only; the route's text goes to the log.
    ctx.logger.error({ ...where, body: text.slice(0, ERROR_TEXT_CHARS) }, 'MCP route-backed tool: the route answered with an error')
    return toolError(status >= 500 ? `The tool "${plan.tool}" failed (HTTP ${status})` : `The tool "${plan.tool}" got an unexpected answer (HTTP ${status})`)
  }
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
    const structured = (plan.output === 'wrapped' ? { result: value } : value) as JsonObject
    return { content: [{ type: 'text', text }], structuredContent: structured }
  }
  if (raw.length === 0) return { content: [] }
  const mimeType = type.split(';')[0]?.trim().toLowerCase() ?? ''
  if (mimeType.startsWith('image/')) return { content: [{ type: 'image', data: raw.toString('base64'), mimeType }] }
  if (mimeType.startsWith('audio/')) return { content: [{ type: 'audio', data: raw.toString('base64'), mimeType }] }
  return { content: [{ type: 'text', text }] }
}
