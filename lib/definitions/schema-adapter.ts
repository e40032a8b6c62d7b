/**
 * One schema of a definition (a tool's `input` or `output`, a prompt's
 * `arguments`), whatever library wrote it, as the two things the helpers
 * need: the JSON Schema to list (plain JSON, 2020-12, `type: "object"` at the
 * root) and a validator compiled once.
 *
 * - TypeBox 0.34 (`@sinclair/typebox`): TypeBox's compiler.
 * - TypeBox 1.x (`typebox`) and plain JSON Schema objects: Ajv, draft 2020-12.
 * - Standard Schema + Standard JSON Schema (zod 4, arktype, valibot through
 *   `toStandardJsonSchema`, ...): listed from `~standard.jsonSchema`,
 *   validated by the library's `~standard.validate`. A plain valibot schema
 *   gets its JSON Schema from `@valibot/to-json-schema` when that is
 *   installed (valibot-converter.ts).
 *
 * The libraries are recognised by shape, never imported: the application
 * brings the one it uses.
 */
import { BoundedMemo } from '../common/bounded-memo.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import type { JsonObject } from '../server-module/contract.js'
import { checkDialect, checkJsonSchema, compileJsonSchema, firstProblemFinder } from './json-schema-validation.js'
import { isPlainObject, plainJsonText } from './plain.js'
import type { StandardJsonSchema } from './schema-types.js'
import { standardValidator } from './standard-validation.js'
import { withValibotJsonSchema } from './valibot-converter.js'
import { compileValidator, isTypeBoxLegacySchema, type SchemaUse, type Validator } from './validation.js'

export type { SchemaUse } from './validation.js'

/** What the error says is accepted. */
export const ACCEPTED_SCHEMAS = 'a TypeBox object (@sinclair/typebox 0.34 or typebox 1.x), a Standard Schema that gives its JSON Schema (zod 4, arktype, valibot with @valibot/to-json-schema installed) or a plain JSON Schema object'

export interface AdaptedSchema {
  /** The JSON Schema to list: plain JSON, an object at the root (the caller's to change). */
  readonly listed: JsonObject
  /** `listed` as JSON text (until the caller changes `listed`). */
  readonly text: string
  /** Whether it declares defaults anywhere (a property called "default" counts too). */
  readonly defaults: boolean
  readonly validator: Validator
}

type Kind = 'typebox-legacy' | 'standard' | 'json-schema'

function standardProps (schema: unknown): Record<string, unknown> | undefined {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) return undefined
  const props = (schema as { '~standard'?: unknown })['~standard']
  return props !== null && typeof props === 'object' ? props as Record<string, unknown> : undefined
}

/** The schema to adapt and its kind: a plain valibot schema becomes one with Standard JSON Schema when the converter is installed. */
function kindOf (schema: unknown, where: string): { schema: unknown, kind: Kind } {
  const standard = standardProps(schema)
  if (standard !== undefined) {
    const converter = standard.jsonSchema as Record<string, unknown> | undefined
    if (typeof standard.validate !== 'function') throw new FST_MCP_INVALID_DEFINITION(where, `a "~standard" without a validate function; expected ${ACCEPTED_SCHEMAS}`)
    if (converter === null || typeof converter !== 'object' || typeof converter.input !== 'function' || typeof converter.output !== 'function') {
      if (standard.vendor === 'valibot') {
        const converted = withValibotJsonSchema(schema)
        if (typeof converted !== 'string') return kindOf(converted, where)
        throw new FST_MCP_INVALID_DEFINITION(where, `a valibot schema without Standard JSON Schema ("~standard.jsonSchema"), so it cannot be listed: ${converted} ` +
          '(it is used automatically), or wrap the schema in its toStandardJsonSchema')
      }
      const vendor = typeof standard.vendor === 'string' ? `${standard.vendor} ` : ''
      throw new FST_MCP_INVALID_DEFINITION(where, `a ${vendor}Standard Schema without Standard JSON Schema ("~standard.jsonSchema"), so it cannot be listed; ` +
        'zod: 4.2 or later; arktype: 2.1.25 or later; valibot: install @valibot/to-json-schema')
    }
    return { schema, kind: 'standard' }
  }
  if (isTypeBoxLegacySchema(schema)) return { schema, kind: 'typebox-legacy' }
  // TypeBox 1.x schemas are plain objects (their `~kind` is not enumerable), so they are JSON Schema as they are.
  if (isPlainObject(schema)) return { schema, kind: 'json-schema' }
  throw new FST_MCP_INVALID_DEFINITION(where, `expected ${ACCEPTED_SCHEMAS}`)
}

/** The listed schema as JSON text. */
function listedText (schema: unknown, kind: Kind, use: SchemaUse): string {
  if (kind !== 'standard') return plainJsonText(schema, use.where)
  const converter = (schema as StandardJsonSchema)['~standard'].jsonSchema
  let converted: unknown
  try {
    converted = use.direction === 'output' ? converter.output({ target: 'draft-2020-12' }) : converter.input({ target: 'draft-2020-12' })
  } catch (err) {
    throw new FST_MCP_INVALID_DEFINITION(use.where, `its library cannot give a JSON Schema for it (${(err as Error).message})`)
  }
  return plainJsonText(converted, use.where)
}

/**
 * Compiled validators by kind, use and the JSON text of their schema: tools
 * with the same schema (generated catalogues, per-tenant copies) share one
 * compiled check, so registering many of them does not compile the same code
 * again. Held weakly: a validator lives as long as a definition using it,
 * so removing or replacing a definition at runtime frees what was compiled
 * for it (a registry drops the key once it is collected). Standard Schemas
 * are not shared: their library validates (with refinements and transforms
 * the JSON Schema does not show), and there is nothing to compile.
 */
const MAX_SHARED_VALIDATORS = 4096
const shared = new BoundedMemo<string, WeakRef<Validator>>(MAX_SHARED_VALIDATORS, 'least-recent')
const collected = new FinalizationRegistry<string>((key) => {
  if (shared.has(key) && shared.get(key)?.deref() === undefined) shared.delete(key)
})

function sharedValidator (key: string, compile: () => Validator): Validator {
  let validator = shared.get(key)?.deref()
  if (validator === undefined) {
    validator = compile()
    shared.set(key, new WeakRef(validator))
    collected.register(validator, key)
  }
  return validator
}

/** Lists and checks `schema` for `use` (compiled on first use); a schema of no accepted kind, or not an object schema, fails here. */
export function adaptSchema (given: unknown, use: SchemaUse): AdaptedSchema {
  const { schema, kind } = kindOf(given, use.where)
  const text = listedText(schema, kind, use)
  const listed = JSON.parse(text) as unknown
  if (!isPlainObject(listed) || listed.type !== 'object') {
    throw new FST_MCP_INVALID_DEFINITION(use.where, 'must be an object schema (type "object" at the root, e.g. Type.Object(...) or z.object(...)): the spec requires it')
  }
  checkDialect(listed, use.where)
  const defaults = text.includes('"default"')
  if (kind === 'standard') {
    checkJsonSchema(listed, use.where)
    return { listed: listed as JsonObject, text, defaults, validator: standardValidator(schema as StandardJsonSchema, use) }
  }
  const key = `${kind} ${use.root} ${use.direction} ${text}`
  const validator = kind === 'typebox-legacy'
    ? sharedValidator(key, () => compileValidator(schema as Parameters<typeof compileValidator>[0], use, firstProblemFinder(text, use)))
    : sharedValidator(key, () => compileJsonSchema(listed, text, use))
  return { listed: listed as JsonObject, text, defaults, validator }
}
