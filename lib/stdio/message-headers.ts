/**
 * The HTTP headers a stdio message is given on its way to the endpoint. On
 * stdio all request metadata is in the body; the endpoint's Streamable HTTP
 * checks want the modern era's headers to repeat it (`MCP-Protocol-Version`,
 * `Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`), so the transport mirrors them
 * from the body: they agree by construction, and everything the endpoint
 * checks about the body itself still runs. A legacy message after
 * `initialize` carries the negotiated version, as a Streamable HTTP client's
 * would.
 */
import type { ParamHeader } from '../endpoint/param-headers.js'
import { isJsonObject, type JsonObject } from '../protocol/jsonrpc.js'
import { META_PROTOCOL_VERSION } from '../protocol/meta.js'
import { METHODS } from '../protocol/methods.js'

/** What every message carries: JSON in, JSON or an event stream out. */
export const BASE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'user-agent': 'fastify-mcp-capabilities/stdio'
})

/** A header value as a Streamable HTTP client writes it: as is when plain ASCII, else `=?base64?...?=`. */
export function headerValue (value: string): string {
  return /^[\x20-\x7e]*$/.test(value) && value.trim() === value ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

/** The protocol version a modern message names in its `_meta`, if any. */
export function modernVersionOf (message: JsonObject): string | undefined {
  const params = message.params
  if (!isJsonObject(params) || !isJsonObject(params._meta)) return undefined
  const version = params._meta[META_PROTOCOL_VERSION]
  return typeof version === 'string' ? version : undefined
}

/** The `Mcp-Param-*` headers that mirror a tool's annotated arguments. */
export function paramHeaders (annotations: readonly ParamHeader[], args: unknown): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const { header, path } of annotations) {
    let value: unknown = args
    for (const key of path) value = isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined
    if (value === undefined || value === null || typeof value === 'object') continue
    headers[header] = headerValue(String(value))
  }
  return headers
}

/**
 * A modern request's headers: its version, method and name, as its body
 * states them. The version and method are given verbatim (these headers
 * never travel on a wire, and the endpoint compares them as they are: an
 * encoded form of an odd value would answer -32020 about headers the
 * client never sent, where HTTP answers the value itself); the name in the
 * form the endpoint decodes.
 */
export function modernHeaders (message: JsonObject, version: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': version }
  const method = message.method
  if (typeof method !== 'string') return headers
  headers['mcp-method'] = method
  const nameParam = Object.hasOwn(METHODS, method) ? METHODS[method]?.target?.param : undefined
  const params = message.params
  if (nameParam !== undefined && isJsonObject(params) && typeof params[nameParam] === 'string') {
    headers['mcp-name'] = headerValue(params[nameParam])
  }
  return headers
}
