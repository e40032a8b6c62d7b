/**
 * Sends MCP messages to a Fastify instance (by `inject`, or over real HTTP)
 * and checks every response on the way back: never a 5xx, a JSON body unless
 * 202, and the body valid against the spec's JSON Schema of the protocol
 * version the exchange speaks. Plus exact-shape assertions for results and
 * errors, and builders for modern and legacy requests.
 */
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http'
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Test } from 'tap'
import { isSpecVersion, LEGACY_SPEC_VERSIONS, MODERN_SPEC_VERSION, responseProblems, type SpecVersion } from './spec-schemas.js'

/** The tap assertions these helpers use. */
export type Asserts = Pick<Test, 'ok' | 'equal' | 'strictSame' | 'match' | 'notMatch'>

export type RequestId = string | number
export type HeaderPatch = Record<string, string | undefined>

export const MODERN = '2026-07-28'
export const META_VERSION = 'io.modelcontextprotocol/protocolVersion'
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo'
export const CLIENT_INFO = Object.freeze({ name: 'endpoint-tests', version: '0.0.1' })

/** Methods whose modern request must repeat a param in `Mcp-Name`. */
export const NAME_PARAM: Readonly<Record<string, 'name' | 'uri'>> = {
  'tools/call': 'name',
  'resources/read': 'uri',
  'prompts/get': 'name'
}

export interface McpReply {
  status: number
  headers: Record<string, unknown>
  body: string
  /** The parsed body (undefined when empty). */
  json: any
  /** The protocol version whose schema the body was checked against. */
  version: SpecVersion | undefined
}

function isObject (value: unknown): value is Record<string, any> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function headerValue (headers: Record<string, unknown>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === 'string') return value
  }
  return undefined
}

/**
 * The protocol version a response speaks, from its request: a request whose
 * `_meta` names a version (or that carries a modern version header) is
 * modern; `initialize` speaks the version the server chose; other legacy
 * requests the version of their header, or 2025-03-26 without one (what the
 * transport lets a server assume).
 */
export function inferVersion (payload: unknown, headers: Record<string, unknown>, json: unknown): SpecVersion {
  let message: unknown = payload
  if (typeof payload === 'string') {
    try {
      message = JSON.parse(payload)
    } catch {
      message = undefined
    }
  }
  const header = headerValue(headers, 'mcp-protocol-version')
  const params = isObject(message) && isObject(message.params) ? message.params : undefined
  if (params !== undefined && isObject(params._meta) && Object.hasOwn(params._meta, META_VERSION)) return MODERN_SPEC_VERSION
  if (header === MODERN_SPEC_VERSION) return MODERN_SPEC_VERSION
  if (isObject(message) && message.method === 'initialize') {
    const answered = isObject(json) && isObject(json.result) ? json.result.protocolVersion : undefined
    if (isSpecVersion(answered)) return answered
    const requested = params?.protocolVersion
    if ((LEGACY_SPEC_VERSIONS as readonly unknown[]).includes(requested)) return requested as SpecVersion
    return '2025-11-25'
  }
  if (header === undefined) return '2025-03-26'
  return (LEGACY_SPEC_VERSIONS as readonly string[]).includes(header) ? header as SpecVersion : '2025-11-25'
}

function methodOf (payload: unknown): string | undefined {
  let message: unknown = payload
  if (typeof payload === 'string') {
    try {
      message = JSON.parse(payload)
    } catch {
      return undefined
    }
  }
  return isObject(message) && typeof message.method === 'string' ? message.method : undefined
}

/** Checks one response as described at the top; returns it parsed. */
export function checkReply (
  t: Asserts,
  payload: unknown,
  requestHeaders: Record<string, unknown>,
  status: number,
  headers: Record<string, unknown>,
  body: string,
  version?: SpecVersion
): McpReply {
  t.ok(status < 500, `never a 5xx (got ${status}: ${body.slice(0, 200)})`)
  if (body.length === 0) {
    t.equal(status, 202, 'only 202 Accepted comes without a body')
    return { status, headers, body, json: undefined, version: undefined }
  }
  t.match(String(headers['content-type']), /^application\/json\b/, 'a JSON-RPC body is served as application/json')
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    t.ok(false, `response body is JSON: ${body.slice(0, 200)}`)
    return { status, headers, body, json: undefined, version: undefined }
  }
  const speaks = version ?? inferVersion(payload, requestHeaders, json)
  t.strictSame(responseProblems(speaks, json, methodOf(payload)), [], `response is valid against the ${speaks} schema`)
  return { status, headers, body, json, version: speaks }
}

export interface SendOptions {
  /** Check against this version's schema instead of the inferred one. */
  version?: SpecVersion
  /** Header changes: a string sets a header, undefined removes it. */
  headers?: HeaderPatch
}

function applyPatch (base: Record<string, string>, patch: HeaderPatch | undefined): Record<string, string> {
  const out = { ...base }
  for (const [name, value] of Object.entries(patch ?? {})) {
    const key = name.toLowerCase()
    if (value === undefined) delete out[key]
    else out[key] = value
  }
  return out
}

/** `inject` with the response checks; the payload may be an object (sent as JSON) or a raw string. */
export async function injectMcp (t: Asserts, app: FastifyInstance, options: InjectOptions, version?: SpecVersion): Promise<McpReply> {
  const response = await app.inject(options)
  const requestHeaders = (options.headers ?? {}) as Record<string, unknown>
  return checkReply(t, options.payload, requestHeaders, response.statusCode, response.headers, response.body, version)
}

export interface RawReply {
  status: number
  headers: IncomingHttpHeaders
  body: string
}

/** One POST over a real connection (TCP port or Unix socket), the whole response read. */
export function rawPost (target: { host?: string, port?: number, socketPath?: string }, headers: Record<string, string>, body: string, path = '/mcp', timeoutMs = 10_000): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', ...target, path, method: 'POST', agent: false, headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.setTimeout(timeoutMs, () => req.destroy(new Error('request timed out')))
    req.end(body)
  })
}

/** POSTs over real HTTP (for checks that depend on the socket's address), with the response checks. */
export async function httpPost (t: Asserts, url: string, payload: unknown, headers: Record<string, string>, version?: SpecVersion): Promise<McpReply> {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload)
  const { hostname, port, pathname, search } = new URL(url)
  const reply = await rawPost({ host: hostname, port: port === '' ? 80 : Number(port) }, headers, text, pathname + search, 5000)
  return checkReply(t, payload, headers, reply.status, reply.headers, reply.body, version)
}

/** The modern request `_meta`: version, client capabilities and info. */
export function modernMeta (capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return { [META_VERSION]: MODERN, [META_CAPABILITIES]: capabilities, [META_CLIENT_INFO]: { ...CLIENT_INFO } }
}

/** The headers a conforming modern client sends for `method` with `params`. */
export function modernHeaders (method: string, params: Record<string, unknown> = {}): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method
  }
  const nameParam = NAME_PARAM[method]
  const name = nameParam === undefined ? undefined : params[nameParam]
  if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name)
  return headers
}

/** The `Mcp-Name` form of a value: as is when header-safe, else `=?base64?...?=`. */
export function encodeHeaderValue (value: string): string {
  const safe = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !(value.startsWith('=?base64?') && value.endsWith('?='))
  return safe ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

export interface ModernOptions extends SendOptions {
  id?: RequestId
  /** Replaces the whole `_meta` (default: `modernMeta()`). */
  meta?: Record<string, unknown>
  /** Client capabilities declared in the default `_meta`. */
  capabilities?: Record<string, unknown>
}

export interface LegacyOptions extends SendOptions {
  id?: RequestId
  /** `MCP-Protocol-Version` header; none when undefined. */
  protocolVersion?: string
}

/** Request senders bound to one app and endpoint path, each checking every response. */
export function mcpClient (t: Asserts, app: FastifyInstance, path = '/mcp') {
  return {
    /** POSTs a raw payload (object as JSON, string as is) with exactly these headers. */
    post (payload: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }, version?: SpecVersion): Promise<McpReply> {
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
      return injectMcp(t, app, { method: 'POST', url: path, headers, payload: body }, version)
    },

    /** A modern (2026-07-28) request with matching headers, changed by `options`. */
    modern (method: string, params: Record<string, unknown> = {}, options: ModernOptions = {}): Promise<McpReply> {
      const meta = options.meta ?? modernMeta(options.capabilities)
      const message = { jsonrpc: '2.0', id: options.id ?? 1, method, params: { ...params, _meta: meta } }
      const headers = applyPatch(modernHeaders(method, params), options.headers)
      return injectMcp(t, app, { method: 'POST', url: path, headers, payload: JSON.stringify(message) }, options.version)
    },

    /** A legacy request (no `_meta`), with an optional `MCP-Protocol-Version` header. */
    legacy (method: string, params?: Record<string, unknown>, options: LegacyOptions = {}): Promise<McpReply> {
      const message: Record<string, unknown> = { jsonrpc: '2.0', id: options.id ?? 1, method }
      if (params !== undefined) message.params = params
      const base: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      if (options.protocolVersion !== undefined) base['mcp-protocol-version'] = options.protocolVersion
      const headers = applyPatch(base, options.headers)
      return injectMcp(t, app, { method: 'POST', url: path, headers, payload: JSON.stringify(message) }, options.version)
    },

    /** A legacy `initialize` offering `protocolVersion`. */
    initialize (protocolVersion: string, options: LegacyOptions = {}): Promise<McpReply> {
      return this.legacy('initialize', { protocolVersion, capabilities: {}, clientInfo: { ...CLIENT_INFO } }, options)
    },

    /** Any other HTTP method, checked the same way. */
    send (method: 'GET' | 'DELETE' | 'PUT' | 'PATCH', headers: Record<string, string> = {}, version?: SpecVersion): Promise<McpReply> {
      return injectMcp(t, app, { method, url: path, headers }, version)
    }
  }
}

export interface ExpectedError {
  status: number
  code: number
  /** The echoed id; undefined asserts that the response has none. */
  id: RequestId | undefined
  /** Exact `error.data`; when the key is left out, `data` must be absent. */
  data?: unknown
  /** Pattern for `error.message` (always checked to be a non-empty string). */
  message?: RegExp
}

/** Asserts a JSON-RPC error response exactly: status, code, id (or its absence), data (or its absence). */
export function assertError (t: Asserts, reply: McpReply, expected: ExpectedError): void {
  t.equal(reply.status, expected.status, `HTTP ${expected.status}`)
  const json = reply.json
  t.ok(isObject(json) && isObject(json.error), 'the body is a JSON-RPC error')
  if (!isObject(json) || !isObject(json.error)) return
  t.strictSame(Object.keys(json).sort(), (expected.id === undefined ? ['error', 'jsonrpc'] : ['error', 'id', 'jsonrpc']),
    'the envelope has exactly jsonrpc, error and (when echoed) id')
  t.equal(json.jsonrpc, '2.0')
  t.equal(json.error.code, expected.code, `error code ${expected.code}`)
  if (expected.id === undefined) t.ok(!Object.hasOwn(json, 'id'), 'no id is echoed')
  else t.equal(json.id, expected.id, 'the request id is echoed')
  t.ok(typeof json.error.message === 'string' && json.error.message.length > 0, 'the error has a message')
  if (expected.message !== undefined) t.match(json.error.message, expected.message)
  if (Object.hasOwn(expected, 'data')) t.strictSame(json.error.data, expected.data, 'error.data is exactly as expected')
  else t.ok(!Object.hasOwn(json.error, 'data'), 'error.data is absent')
}

/** Asserts a 200 JSON-RPC result response equal to `{ jsonrpc, id, result }`. */
export function assertResult (t: Asserts, reply: McpReply, id: RequestId, result: unknown): void {
  t.equal(reply.status, 200, 'HTTP 200')
  t.strictSame(reply.json, { jsonrpc: '2.0', id, result }, 'the response is exactly the expected result')
}
