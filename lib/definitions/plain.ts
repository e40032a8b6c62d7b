/**
 * Listed definitions are plain JSON, valid per the spec, deeply frozen:
 * TypeBox's symbol keys (`Kind`, `Optional`, ...) never reach a client, and a
 * frozen list is one the endpoint serialises once and serves as prepared
 * bytes (lib/response/frozen-json.ts).
 */
import type { TSchema } from '@sinclair/typebox'
import { TypeCompiler, type TypeCheck } from '../typebox/compiler.js'
import { Errors, type ValueError } from '../typebox/errors.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { array, check, custom, func, group, type GroupValue, map, string, type Spec } from '../check/option-spec.js'

export function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/** A JSON copy of `value`: symbol keys dropped; functions, cycles and the like refused. */
export function plainJson<T> (value: T, where: string): T {
  return JSON.parse(plainJsonText(value, where)) as T
}

/**
 * Whether `value` is plain JSON data as far as a quick walk can tell: no
 * function, BigInt or symbol value, no `toJSON`, not deeper than a schema
 * gets. Then JSON.stringify needs no replacer (which costs several times the
 * walk on every key); anything else takes the replacer's path and its errors.
 */
function isSimpleJson (value: unknown, depth: number): boolean {
  if (value === null) return true
  switch (typeof value) {
    case 'string': case 'number': case 'boolean': case 'undefined': return true
    case 'object': {
      if (depth > 64) return false
      if (Array.isArray(value)) {
        for (const item of value) if (!isSimpleJson(item, depth + 1)) return false
        return true
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false
      for (const key in value) {
        if (!isSimpleJson((value as Record<string, unknown>)[key], depth + 1)) return false
      }
      return true
    }
    default: return false
  }
}

/** `value` as JSON text, refused as `plainJson` refuses it. */
export function plainJsonText (value: unknown, where: string): string {
  let simple = false
  try {
    simple = isSimpleJson(value, 0)
  } catch {
    // A throwing getter: the replacer's path says so.
  }
  if (simple) {
    const text = JSON.stringify(value)
    if (typeof text === 'string') return text
  }
  let text: string | undefined
  try {
    text = JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'function' || typeof item === 'bigint' || typeof item === 'symbol') throw new TypeError(`a ${typeof item} is not JSON`)
      return item
    })
  } catch (err) {
    throw new FST_MCP_INVALID_DEFINITION(where, `not JSON data (${(err as Error).message})`)
  }
  if (text === undefined) throw new FST_MCP_INVALID_DEFINITION(where, 'not JSON data')
  return text
}

export function isPlainObject (value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** Copies the optional descriptive fields a definition shares with its listed form. */
export function copyFields (from: Record<string, unknown>, to: Record<string, unknown>, fields: readonly string[], where: string): void {
  for (const field of fields) {
    const value = from[field]
    if (value === undefined) continue
    to[field] = typeof value === 'string' ? value : plainJson(value, `${where} (${field})`)
  }
}

/** Any value: checked later, against the listed item's spec schema (`checkListed`). */
export const LISTED = custom('a value of the listed item', (value) => value)
export const TEXT = string({})

const SCOPE_NAME = string({ nonEmpty: true, required: true, expects: 'a scope name (a non-empty string without spaces)' })
/** `scopes?: string[]`: copied and frozen, or undefined when empty. */
export const SCOPES = map(array(custom(SCOPE_NAME.expects, (value, at) => {
  const name = SCOPE_NAME.read(value, at)
  if (/\s/.test(name)) at.expected(SCOPE_NAME)
  return name
}, true), { expects: 'an array of scope names (non-empty strings without spaces)' }),
(list): readonly string[] | undefined => list === undefined || list.length === 0 ? undefined : Object.freeze([...new Set(list)]))

/** A function; `expects` says how it is called. */
export function callback<F extends (...args: any[]) => unknown> (expects: string, required?: true): Spec<F> {
  return func<F, { required?: true }>(expects, required === true ? { required } : {}) as Spec<F>
}

/**
 * Checks a definition's fields with the shared checker (lib/check/): unknown
 * fields are refused, the known ones listed; a bad one is named in the error.
 */
const definitionSpecs = new WeakMap<object, Spec<any>>()

export function checkDefinition<F extends Record<string, Spec<any>>> (fields: F, definition: unknown, where: string): GroupValue<F> {
  // One group spec per kind of definition (made once, not per definition of a catalogue of thousands).
  let spec = definitionSpecs.get(fields) as Spec<GroupValue<F>> | undefined
  if (spec === undefined) {
    spec = group(fields, { required: true })
    definitionSpecs.set(fields, spec)
  }
  return check(spec, definition, '', (path, message) =>
    new FST_MCP_INVALID_DEFINITION(where, path === '' ? message : `"${path}": ${message}`), 'field')
}

/**
 * Listed items checked against one spec schema by TypeBox's error iterator
 * (a walk of schema and value, tens of microseconds) before it is compiled:
 * compiling the `Tool` schema costs milliseconds of every start, more than a
 * server of a few dozen tools spends walking; a catalogue of thousands
 * compiles it once these are spent (bench/cold-start.ts, docs/performance.md).
 */
export const INTERPRETED_LISTED_CHECKS = 32

/** Per spec schema: its compiled check, or how many items it checked uncompiled. */
const listedChecks = new WeakMap<TSchema, TypeCheck<TSchema> | number>()

/** The first problem of `value` against `schema` (a spec schema), undefined when it matches. */
function firstListedProblem (schema: TSchema, value: unknown): ValueError | undefined {
  const known = listedChecks.get(schema)
  if (typeof known === 'object') return known.Check(value) ? undefined : known.Errors(value).First()
  const checked = (known ?? 0) + 1
  listedChecks.set(schema, checked < INTERPRETED_LISTED_CHECKS ? checked : TypeCompiler.Compile(schema))
  return Errors(schema, value).First()
}

/** A listed item must match its spec schema (`Tool`, `Prompt`, ...): the first mismatch is named at definition time. */
export function checkListed (schema: TSchema, value: unknown, where: string, what: string): void {
  const first = firstListedProblem(schema, value)
  if (first !== undefined) {
    throw new FST_MCP_INVALID_DEFINITION(where, `not a valid ${what}: ${first.path} ${first.message}`.trim())
  }
}
