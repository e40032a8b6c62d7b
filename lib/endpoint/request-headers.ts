/**
 * Header–body validation of modern (2026-07-28) requests: the transport
 * mirrors the version, method and name into headers for intermediaries, and
 * a server must reject any disagreement (HeaderMismatch, -32020).
 */
import type { IncomingHttpHeaders } from 'node:http'
import { clip, quote } from '../protocol/describe.js'
import { PairMemo } from '../common/bounded-memo.js'

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/

/** Decodes the `=?base64?...?=` form of `Mcp-Name`; undefined when malformed. */
export function decodeHeaderValue (value: string): string | undefined {
  // Only the whole sentinel marks an encoded value; a name that merely starts like it is plain.
  if (!value.startsWith('=?base64?') || !value.endsWith('?=') || value.length < '=?base64??='.length) return value
  const match = BASE64_SENTINEL.exec(value)
  if (match === null) return undefined
  const encoded = match[1] as string
  if (encoded.length % 4 !== 0) return undefined
  const bytes = Buffer.from(encoded, 'base64')
  const text = bytes.toString('utf8')
  // Reject bytes that are not valid UTF-8 rather than compare a lossy decoding.
  if (!Buffer.from(text, 'utf8').equals(bytes)) return undefined
  return text
}

function single (headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name]
  return typeof value === 'string' ? value : undefined
}

/**
 * Mismatch messages by header and body value, one cache per kind. A client
 * that sends a mismatch tends to send the same one again; it then gets the
 * very same string, which is cheap to build and cheap to look up where the
 * rejection's bytes are kept (responses.ts). Bounded.
 */
const MESSAGES_PER_KIND = 128
/** Longer values are not remembered: memo keys are the client's strings, so they bound its bytes (issue 11). */
const MAX_REMEMBERED_CHARS = 128

function message (memo: PairMemo<string, string, string>, build: (a: string, b: string) => string, header: string, body: string): string {
  return header.length <= MAX_REMEMBERED_CHARS && body.length <= MAX_REMEMBERED_CHARS ? memo.get(header, body) : build(header, body)
}

function versionMismatch (header: string, version: string): string {
  return `Header mismatch: MCP-Protocol-Version header ${quote(header)} does not match _meta protocol version ${quote(version)}`
}

function methodMismatch (header: string, method: string): string {
  return `Header mismatch: Mcp-Method header ${quote(header)} does not match body method ${quote(method)}`
}

function nameMismatch (decoded: string, name: string): string {
  return `Header mismatch: Mcp-Name header ${quote(decoded)} does not match body value ${quote(name)}`
}

const versionMessages = new PairMemo(MESSAGES_PER_KIND, versionMismatch)
const methodMessages = new PairMemo(MESSAGES_PER_KIND, methodMismatch)
const nameMessages = new PairMemo(MESSAGES_PER_KIND, nameMismatch)

/**
 * Returns a description of the first mismatch, or undefined when the headers
 * agree with the body. `name` is the body value `Mcp-Name` must repeat, if any.
 */
export function findHeaderMismatch (
  headers: IncomingHttpHeaders,
  version: string,
  method: string,
  name: string | undefined
): string | undefined {
  const versionHeader = single(headers, 'mcp-protocol-version')
  if (versionHeader === undefined) return 'Header mismatch: MCP-Protocol-Version header is required'
  if (versionHeader !== version) return message(versionMessages, versionMismatch, versionHeader, version)
  const methodHeader = single(headers, 'mcp-method')
  if (methodHeader === undefined) return 'Header mismatch: Mcp-Method header is required'
  if (methodHeader !== method) return message(methodMessages, methodMismatch, methodHeader, method)
  if (name === undefined) return undefined
  const nameHeader = single(headers, 'mcp-name')
  if (nameHeader === undefined) return `Header mismatch: Mcp-Name header is required for ${clip(method)}`
  const decoded = decodeHeaderValue(nameHeader)
  if (decoded === undefined) return 'Header mismatch: Mcp-Name header has a malformed base64 value'
  if (decoded !== name) return message(nameMessages, nameMismatch, decoded, name)
  return undefined
}
