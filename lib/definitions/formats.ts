/**
 * String formats for TypeBox's compiler. TypeBox rejects every value of a
 * format nobody registered, so a tool with `Type.String({ format: 'email' })`
 * would refuse every call: the common JSON Schema formats are registered
 * here (only where the application has not registered its own), and any
 * other format is reported when the tool is defined, not when it is called.
 *
 * Every check runs on client input, so each is linear in the value's length
 * (no regular expression here can backtrack more than a bounded amount), and
 * `regex`, whose compilation is costly per character, is bounded in length.
 */
import { FormatRegistry } from '../typebox/index.js'

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(z|[+-]\d{2}:\d{2})$/i
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/
const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i
/** Longest `regex`-format value compiled: V8 spends microseconds per character on some (`\p{…}`). */
export const MAX_REGEX_FORMAT_LENGTH = 1000
const WHITESPACE = /\s/
const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isDate (value: string): boolean {
  const match = DATE.exec(value)
  if (match === null) return false
  const year = Number(match[1])
  const month = Number(match[2])
  const day = Number(match[3])
  if (month < 1 || month > 12 || day < 1) return false
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return day <= (month === 2 && !leap ? 28 : DAYS[month - 1] as number)
}

function isTime (value: string): boolean {
  const match = TIME.exec(value)
  return match !== null && Number(match[1]) <= 23 && Number(match[2]) <= 59 && Number(match[3]) <= 60
}

/**
 * `local@domain.tld`: one `@`, no whitespace, a dot in the domain with
 * something on each side. Scanned once: the regular expression that said the
 * same (`^[^\s@]+@[^\s@]+\.[^\s@]+$`) backtracked cubically on `a@....@`.
 */
function isEmail (value: string): boolean {
  const at = value.indexOf('@')
  if (at < 1 || value.indexOf('@', at + 1) !== -1 || WHITESPACE.test(value)) return false
  const dot = value.indexOf('.', at + 2)
  return dot !== -1 && dot < value.length - 1
}

function isRegex (value: string): boolean {
  if (value.length > MAX_REGEX_FORMAT_LENGTH) return false
  try {
    RegExp(value, 'u')
    return true
  } catch {
    return false
  }
}

function isIpv6 (value: string): boolean {
  try {
    return value.includes(':') && new URL(`http://[${value}]/`).hostname.length > 2
  } catch {
    return false
  }
}

const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  date: isDate,
  time: isTime,
  'date-time': (value) => {
    const at = value.search(/[tT ]/)
    return at > 0 && isDate(value.slice(0, at)) && isTime(value.slice(at + 1))
  },
  email: isEmail,
  uri: (value) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value),
  'uri-reference': (value) => URL.canParse(value, 'http://x/'),
  uuid: (value) => UUID.test(value),
  ipv4: (value) => IPV4.test(value),
  ipv6: isIpv6,
  hostname: (value) => HOSTNAME.test(value),
  regex: isRegex
}

/** Registers the common formats TypeBox does not know yet; never replaces the application's own. */
let registered = false

export function registerCommonFormats (): void {
  // once is the usual case; an application that cleared the registry gets them back
  if (registered && FormatRegistry.Has('date-time')) return
  registered = true
  for (const [name, check] of Object.entries(FORMATS)) {
    if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check)
  }
}

/** Formats used anywhere in `schema` that no one registered. */
export function unknownFormats (schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) unknownFormats(item, found)
  } else if (schema !== null && typeof schema === 'object') {
    const record = schema as Record<string, unknown>
    if (typeof record.format === 'string' && !FormatRegistry.Has(record.format)) found.add(record.format)
    for (const key of Object.keys(record)) {
      // `properties` maps names to schemas: a property called "format" is not a keyword
      if (key !== 'format' || typeof record[key] !== 'string') unknownFormats(record[key], found)
    }
  }
  return found
}

/**
 * How to register a format or kind the plugin does not know. The plugin checks
 * with its own TypeBox (lib/typebox/index.ts): in the built package a copy of
 * its own, so one registered on a separately imported `@sinclair/typebox` is
 * not seen, and the message names the registry that is.
 */
export function registerBeforeDefining (registry: 'FormatRegistry' | 'TypeRegistry'): string {
  return `register it with ${registry}.Set, ${registry} imported from 'fastify-mcp-capabilities/typebox' (the plugin's own TypeBox; a separately imported @sinclair/typebox has registries of its own), before defining`
}

/** The definition error for formats nobody registered. */
export function unknownFormatsProblem (formats: Set<string>): string {
  return `unknown string format ${[...formats].map((f) => `"${f}"`).join(', ')}: ${registerBeforeDefining('FormatRegistry')}`
}
