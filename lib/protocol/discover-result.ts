/**
 * The client-side reader of a `server/discover` result (docs/protocol.md).
 *
 * It never throws, whatever it is handed: the input comes off the wire (or from
 * a caller's object that may carry throwing getters, Proxies or cycles), so
 * every read goes through `read()`, which turns an exception into "absent".
 * It fails closed: a missing or odd cache hint reads as "do not cache"
 * (`ttlMs` 0) and "do not share" (`cacheScope` private).
 */
import { SERVER_INFO_META } from './meta.js'

export type CacheScope = 'public' | 'private'

export interface ServerIcon {
  src: string
  mimeType?: string
  sizes?: string[]
  theme?: 'light' | 'dark'
}

/** `_meta["io.modelcontextprotocol/serverInfo"]`, an MCP `Implementation`. Display-only. */
export interface ServerInfo {
  name: string
  version: string
  title?: string
  description?: string
  websiteUrl?: string
  icons?: ServerIcon[]
}

export interface ParsedDiscoverResult {
  /** The input's `supportedVersions`, copied, in the server's order. */
  supportedVersions: string[]
  /** The server's capabilities object, as sent. */
  capabilities: Record<string, unknown>
  instructions: string | null
  /** A non-negative integer; anything else on the wire reads as 0. */
  ttlMs: number
  /** `'public'` only for exactly `"public"`. */
  cacheScope: CacheScope
  /** A clean copy of the well-formed fields, or null when absent or malformed. */
  serverInfo: ServerInfo | null
  /** The result's `_meta`, or `{}`. */
  meta: Record<string, unknown>
  /** The whole input. */
  raw: Record<string, unknown>
}

export interface DiscoverResultError {
  reason: 'invalid_discover_result'
  message: string
}

export type DiscoverResultParse =
  | { ok: true, result: ParsedDiscoverResult }
  | { ok: false, error: DiscoverResultError }

export function parseDiscoverResult (raw: unknown): DiscoverResultParse {
  try {
    return parse(raw)
  } catch {
    // Not reachable with the guarded reads below; kept so that the contract
    // ("never throws") does not depend on every branch being perfect.
    return invalid('the result could not be read')
  }
}

function parse (raw: unknown): DiscoverResultParse {
  if (!isObject(raw)) return invalid(`expected the result to be an object, got ${describe(raw)}`)

  const resultType = read(raw, 'resultType')
  if (resultType !== undefined && resultType !== 'complete') {
    return invalid('resultType must be absent or "complete"')
  }

  const supportedVersions = stringArray(read(raw, 'supportedVersions'))
  if (supportedVersions === null) return invalid('supportedVersions must be an array of strings')

  const capabilities = read(raw, 'capabilities')
  if (!isObject(capabilities)) return invalid(`capabilities must be an object, got ${describe(capabilities)}`)

  const instructions = read(raw, 'instructions')
  const metaValue = read(raw, '_meta')
  const meta = isObject(metaValue) ? metaValue : {}

  return {
    ok: true,
    result: {
      supportedVersions,
      capabilities,
      instructions: typeof instructions === 'string' ? instructions : null,
      ttlMs: ttl(read(raw, 'ttlMs')),
      cacheScope: read(raw, 'cacheScope') === 'public' ? 'public' : 'private',
      serverInfo: parseImplementation(read(meta, SERVER_INFO_META)),
      meta,
      raw
    }
  }
}

function invalid (message: string): DiscoverResultParse {
  return { ok: false, error: { reason: 'invalid_discover_result', message } }
}

/** A JSON object: not null, not an array. Array.isArray throws on a revoked Proxy, so guard it. */
function isObject (value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  try {
    return !Array.isArray(value)
  } catch {
    return false
  }
}

/**
 * An own property, or undefined when absent or unreadable. Own only: an
 * inherited (or polluted `Object.prototype`) value is not part of the message.
 */
function read (obj: object, key: string): unknown {
  try {
    if (!Object.prototype.hasOwnProperty.call(obj, key)) return undefined
    return (obj as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

function describe (value: unknown): string {
  if (value === null) return 'null'
  try {
    if (Array.isArray(value)) return 'an array'
  } catch {}
  return typeof value
}

/** A copy when every element is a string; null otherwise (including holes and unreadable elements). */
function stringArray (value: unknown): string[] | null {
  try {
    if (!Array.isArray(value)) return null
    const length = value.length
    if (!Number.isSafeInteger(length)) return null
    const out: string[] = []
    for (let i = 0; i < length; i++) {
      const item: unknown = value[i]
      if (typeof item !== 'string') return null
      out.push(item)
    }
    return out
  } catch {
    return null
  }
}

function ttl (value: unknown): number {
  // `+ 0` turns -0 into 0
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value + 0 : 0
}

/**
 * An MCP `Implementation` (server or client identity) read defensively: null
 * unless `name` and `version` are strings; malformed optional fields dropped.
 */
export function parseImplementation (value: unknown): ServerInfo | null {
  if (!isObject(value)) return null
  const name = read(value, 'name')
  const version = read(value, 'version')
  if (typeof name !== 'string' || typeof version !== 'string') return null
  const info: ServerInfo = { name, version }
  // Optional fields are kept only when well-formed, so the copy is always a valid Implementation.
  const title = read(value, 'title')
  if (typeof title === 'string') info.title = title
  const description = read(value, 'description')
  if (typeof description === 'string') info.description = description
  const websiteUrl = read(value, 'websiteUrl')
  if (isUri(websiteUrl)) info.websiteUrl = websiteUrl
  const icons = iconList(read(value, 'icons'))
  if (icons !== null) info.icons = icons
  return info
}

/** The well-formed icons of a list (malformed entries dropped), or null when it is not a list. */
function iconList (value: unknown): ServerIcon[] | null {
  try {
    if (!Array.isArray(value)) return null
    const length = value.length
    if (!Number.isSafeInteger(length)) return null
    const out: ServerIcon[] = []
    for (let i = 0; i < length; i++) {
      const icon = iconOf(value[i])
      if (icon !== null) out.push(icon)
    }
    return out
  } catch {
    return null
  }
}

function iconOf (value: unknown): ServerIcon | null {
  if (!isObject(value)) return null
  const src = read(value, 'src')
  if (!isUri(src)) return null
  const icon: ServerIcon = { src }
  const mimeType = read(value, 'mimeType')
  if (typeof mimeType === 'string') icon.mimeType = mimeType
  const sizes = stringArray(read(value, 'sizes'))
  if (sizes !== null) icon.sizes = sizes
  const theme = read(value, 'theme')
  if (theme === 'light' || theme === 'dark') icon.theme = theme
  return icon
}

// An absolute URI per RFC 3986 (the schema's `format: "uri"`), restricted to a
// registered-name or IPv4 host (no IP literals) so the check stays small.
const HEX = '%[0-9A-Fa-f]{2}'
const UNRESERVED_SUB = "A-Za-z0-9\\-._~!$&'()*+,;="
const PCHAR = `(?:[${UNRESERVED_SUB}:@]|${HEX})`
const AUTHORITY = `(?:(?:[${UNRESERVED_SUB}:]|${HEX})*@)?(?:[${UNRESERVED_SUB}]|${HEX})*(?::[0-9]*)?`
const HIER = `(?://${AUTHORITY}(?:/${PCHAR}*)*|/(?:${PCHAR}+(?:/${PCHAR}*)*)?|${PCHAR}+(?:/${PCHAR}*)*)`
const TAIL = `(?:\\?(?:${PCHAR}|[/?])*)?(?:#(?:${PCHAR}|[/?])*)?`
const URI = new RegExp(`^[A-Za-z][A-Za-z0-9+\\-.]*:${HIER}${TAIL}$`)

function isUri (value: unknown): value is string {
  return typeof value === 'string' && URI.test(value)
}
