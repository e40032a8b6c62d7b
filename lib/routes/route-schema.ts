/**
 * A route's schemas as a tool lists them: plain JSON (TypeBox's symbol keys
 * dropped), every `$ref` to a shared schema (`fastify.addSchema`, as
 * `'id'`, `'id#'` or `'id#/properties/x'`) and to the schema's own
 * `#/definitions/...` inlined, and the draft-07 spellings Fastify's Ajv
 * accepts rewritten to JSON Schema 2020-12, the dialect MCP tool schemas use:
 * tuple `items: [...]` → `prefixItems`, `additionalItems` → `items`,
 * `dependencies` → `dependentRequired` / `dependentSchemas`,
 * `nullable: true` → a `"null"` type, and `$schema` / `$id` dropped.
 *
 * A recursive reference (a tree of categories) cannot be inlined: the
 * recursion point becomes `{}` (any value), so the listed schema stays
 * finite; the route still validates the whole value itself.
 */
import { plainJson } from '../definitions/plain.js'

export type JsonSchema = Record<string, unknown>

/** The shared schemas of the route's context, by `$id` (plain JSON). */
export type SharedSchemas = ReadonlyMap<string, JsonSchema>

export class UnresolvedRef extends Error {
  constructor (readonly ref: string) {
    super(`$ref "${ref}" names no schema added with fastify.addSchema in the route's context`)
    this.name = 'UnresolvedRef'
  }
}

/** Plain JSON copies of `fastify.getSchemas()`, by id (with and without a trailing `#`). */
export function sharedSchemasOf (schemas: Record<string, unknown>): SharedSchemas {
  const out = new Map<string, JsonSchema>()
  for (const [id, schema] of Object.entries(schemas)) {
    const plain = plainJson(schema, `shared schema "${id}"`) as JsonSchema
    out.set(id.replace(/#$/, ''), plain)
  }
  return out
}

function isObject (value: unknown): value is JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The value at a JSON pointer fragment (`/properties/a`) of `doc`, or undefined. */
function atPointer (doc: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return doc
  let node: unknown = doc
  for (const raw of pointer.replace(/^\//, '').split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

/** Keywords whose value is one schema. */
const ONE_SCHEMA = new Set(['items', 'additionalItems', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains',
  'propertyNames', 'unevaluatedItems', 'unevaluatedProperties'])
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems'])
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'dependentSchemas'])
/** Dropped from listed schemas: meta, identity, and definitions every reference to which is inlined. */
const DROPPED = new Set(['$schema', '$id', 'id', '$anchor', 'definitions', '$defs', '$comment'])

interface Walk {
  readonly shared: SharedSchemas
  /** References being inlined (to detect recursion). */
  readonly stack: Set<string>
}

/**
 * `schema` (found in `doc`, whose id is `docId`; '' for the route's own
 * schema) as a self-contained 2020-12 schema.
 */
function walk (schema: unknown, doc: unknown, docId: string, w: Walk): unknown {
  if (typeof schema === 'boolean') return schema
  if (!isObject(schema)) return schema
  if (typeof schema.$ref === 'string') return inlineRef(schema, doc, docId, w)
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED.has(key)) continue
    if (ONE_SCHEMA.has(key) && !(key === 'items' && Array.isArray(value))) out[key] = walk(value, doc, docId, w)
    else if (SCHEMA_LIST.has(key) && Array.isArray(value)) out[key] = value.map((item) => walk(item, doc, docId, w))
    else if (SCHEMA_MAP.has(key) && isObject(value)) {
      const mapped: JsonSchema = {}
      for (const [name, item] of Object.entries(value)) mapped[name] = walk(item, doc, docId, w)
      out[key] = mapped
    } else out[key] = value
  }
  return to2020(out, schema, doc, docId, w)
}

/** The draft-07 spellings rewritten (on the walked copy `out` of `source`). */
function to2020 (out: JsonSchema, source: JsonSchema, doc: unknown, docId: string, w: Walk): JsonSchema {
  if (Array.isArray(source.items)) {
    out.prefixItems = source.items.map((item) => walk(item, doc, docId, w))
    delete out.items
    if (Object.hasOwn(source, 'additionalItems')) {
      out.items = out.additionalItems
    }
  }
  delete out.additionalItems
  if (isObject(source.dependencies)) {
    delete out.dependencies
    for (const [name, value] of Object.entries(source.dependencies)) {
      if (Array.isArray(value)) {
        out.dependentRequired = { ...(out.dependentRequired as JsonSchema | undefined), [name]: value }
      } else {
        out.dependentSchemas = { ...(out.dependentSchemas as JsonSchema | undefined), [name]: walk(value, doc, docId, w) }
      }
    }
  }
  if (out.nullable === true) {
    delete out.nullable
    if (typeof out.type === 'string' && out.type !== 'null') out.type = [out.type, 'null']
    else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null']
    else if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  } else if (out.nullable === false) {
    delete out.nullable
  }
  return out
}

function inlineRef (node: JsonSchema, doc: unknown, docId: string, w: Walk): unknown {
  const ref = node.$ref as string
  const hash = ref.indexOf('#')
  const base = hash === -1 ? ref : ref.slice(0, hash)
  const fragment = hash === -1 ? '' : ref.slice(hash + 1)
  let targetDoc = doc
  let targetId = docId
  if (base !== '') {
    const direct = w.shared.get(base.replace(/#$/, ''))
    const found = direct !== undefined ? { id: base, schema: direct } : resolveRelative(base, docId, w.shared)
    if (found === undefined) throw new UnresolvedRef(ref)
    targetDoc = found.schema
    targetId = found.id
  }
  if (fragment !== '' && !fragment.startsWith('/')) {
    // `#anchor`: look for the `$anchor` in the target document.
    const anchored = findAnchor(targetDoc, fragment)
    if (anchored === undefined) throw new UnresolvedRef(ref)
    return inlineTarget(node, anchored, targetDoc, targetId, `${targetId}#${fragment}`, w)
  }
  const target = atPointer(targetDoc, fragment)
  if (target === undefined) throw new UnresolvedRef(ref)
  return inlineTarget(node, target, targetDoc, targetId, `${targetId}#${fragment}`, w)
}

function inlineTarget (node: JsonSchema, target: unknown, targetDoc: unknown, targetId: string, key: string, w: Walk): unknown {
  // Recursion: stop here with "any value" (the route validates the rest).
  if (w.stack.has(key)) return {}
  w.stack.add(key)
  let inlined: unknown
  try {
    inlined = walk(target, targetDoc, targetId, w)
  } finally {
    w.stack.delete(key)
  }
  const { $ref: _ref, ...siblings } = node
  if (Object.keys(siblings).length === 0) return inlined
  // Keywords beside the $ref (2020-12 applies both): annotations win, constraints combine.
  const rest = walk(siblings, targetDoc, targetId, w) as JsonSchema
  if (typeof inlined === 'boolean') return inlined ? rest : false
  const merged: JsonSchema = { ...(inlined as JsonSchema) }
  const constraints: JsonSchema = {}
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'title' || key === 'description' || key === 'default' || key === 'examples' || !Object.hasOwn(merged, key)) merged[key] = value
    else constraints[key] = value
  }
  return Object.keys(constraints).length === 0 ? merged : { ...merged, allOf: [...((merged.allOf as unknown[]) ?? []), constraints] }
}

function resolveRelative (base: string, docId: string, shared: SharedSchemas): { id: string, schema: JsonSchema } | undefined {
  if (docId === '' || !URL.canParse(base, docId)) return undefined
  const id = new URL(base, docId).href.replace(/#$/, '')
  const schema = shared.get(id)
  return schema === undefined ? undefined : { id, schema }
}

function findAnchor (schema: unknown, anchor: string): unknown {
  if (schema === null || typeof schema !== 'object') return undefined
  if ((schema as JsonSchema).$anchor === anchor) return schema
  for (const value of Object.values(schema)) {
    const found = findAnchor(value, anchor)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The route's `schema` (one of its parts, or a response) as listed: plain,
 * self-contained, 2020-12. Throws UnresolvedRef for a reference it cannot follow.
 */
export function listedSchema (schema: unknown, shared: SharedSchemas, where: string): unknown {
  const plain = plainJson(schema, where)
  // A shared schema may be referenced by its id from the root (`{ $ref: 'User#' }`).
  const docId = isObject(plain) && typeof plain.$id === 'string' ? plain.$id.replace(/#$/, '') : ''
  return walk(plain, plain, docId, { shared, stack: new Set() })
}
