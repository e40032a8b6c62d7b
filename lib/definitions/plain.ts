/**
 * Listed definitions are plain JSON, valid per the spec, deeply frozen:
 * TypeBox's symbol keys (`Kind`, `Optional`, ...) never reach a client, and a
 * frozen list is one the endpoint serialises once and serves as prepared
 * bytes (lib/response/frozen-json.ts).
 */
import type { TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'

export function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  }
  return value
}

/** A JSON copy of `value`: symbol keys dropped; functions, cycles and the like refused. */
export function plainJson<T> (value: T, where: string): T {
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
  return JSON.parse(text) as T
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
    to[field] = plainJson(value, `${where} (${field})`)
  }
}

export function optionalString (value: unknown, where: string, field: string): void {
  if (value !== undefined && typeof value !== 'string') throw new FST_MCP_INVALID_DEFINITION(where, `"${field}" must be a string`)
}

/** `scopes?: string[]`: copied and frozen, or undefined when empty. */
export function checkScopes (value: unknown, where: string): readonly string[] | undefined {
  if (value === undefined) return undefined
  if (!Array.isArray(value) || !value.every((s) => typeof s === 'string' && s.length > 0 && !/\s/.test(s))) {
    throw new FST_MCP_INVALID_DEFINITION(where, '"scopes" must be an array of scope names (non-empty strings without spaces)')
  }
  return value.length === 0 ? undefined : Object.freeze([...new Set(value as string[])])
}

/** A listed item must match its spec schema (`Tool`, `Prompt`, ...): the first mismatch is named at definition time. */
export function checkListed (schema: TSchema, value: unknown, where: string, what: string): void {
  if (!Value.Check(schema, value)) {
    const first = [...Value.Errors(schema, value)][0]
    throw new FST_MCP_INVALID_DEFINITION(where, `not a valid ${what}: ${first?.path ?? ''} ${first?.message ?? ''}`.trim())
  }
}
