/**
 * Validators for JSON Schemas that are not TypeBox 0.34 builders: plain JSON
 * Schema objects and TypeBox 1.x schemas (which are plain JSON Schema with
 * non-enumerable `~kind` markers). Ajv in its draft 2020-12 mode, the dialect
 * MCP lists, so every keyword is honoured; Fastify already depends on Ajv 8,
 * so it adds nothing to an install. String formats are the ones TypeBox's
 * FormatRegistry knows (formats.ts registers the common ones), so a format
 * means the same whichever way a schema is written.
 */
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import { FormatRegistry } from '@sinclair/typebox'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { registerCommonFormats, unknownFormats } from './formats.js'
import { clip } from '../protocol/describe.js'
import { CompiledOnFirstUse, Invalid, readablePath, type SchemaUse, type Validator, withinStack } from './validation.js'

const DRAFT_2020_12 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/

let filling: Ajv2020 | undefined
let checking: Ajv2020 | undefined

/** One instance that fills in defaults (arguments) and one that does not (results), made on first use. */
function ajv (applyDefaults: boolean): Ajv2020 {
  if (applyDefaults) filling ??= new Ajv2020({ allErrors: true, strict: false, useDefaults: true, logger: false })
  else checking ??= new Ajv2020({ allErrors: true, strict: false, logger: false })
  return (applyDefaults ? filling : checking) as Ajv2020
}

function checkFormats (schema: unknown, where: string): void {
  registerCommonFormats()
  const unknown = unknownFormats(schema)
  if (unknown.size > 0) {
    throw new FST_MCP_INVALID_DEFINITION(where, `unknown string format ${[...unknown].map((f) => `"${f}"`).join(', ')}: register it with FormatRegistry.Set (from @sinclair/typebox) before defining`)
  }
}

function addFormats (instance: Ajv2020, schema: unknown): void {
  for (const name of formatsIn(schema)) {
    if (instance.formats[name] === undefined) instance.addFormat(name, FormatRegistry.Get(name) as (value: string) => boolean)
  }
}

function formatsIn (schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) formatsIn(item, found)
  } else if (schema !== null && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'format' && typeof value === 'string') found.add(value)
      else formatsIn(value, found)
    }
  }
  return found
}

/** A listed schema declares no other dialect than 2020-12 (what clients read it as). */
export function checkDialect (schema: Record<string, unknown>, where: string): void {
  const dialect = schema.$schema
  if (dialect !== undefined && (typeof dialect !== 'string' || !DRAFT_2020_12.test(dialect))) {
    throw new FST_MCP_INVALID_DEFINITION(where, `"$schema" is ${JSON.stringify(dialect)}: MCP lists JSON Schema 2020-12 (https://json-schema.org/draft/2020-12/schema)`)
  }
}

/** Refuses a schema that is not valid JSON Schema 2020-12 (checked against the meta-schema). */
export function checkJsonSchema (schema: Record<string, unknown>, where: string): void {
  const instance = ajv(false)
  if (instance.validateSchema(schema) !== true) {
    throw new FST_MCP_INVALID_DEFINITION(where, `not a valid JSON Schema 2020-12: ${instance.errorsText(instance.errors)}`)
  }
}

/** The path quotes the client's keys: a few dozen characters of it. */
function pathOf (pointer: string, root: string): string {
  return clip(readablePath(pointer, root))
}

function problemLine (error: ErrorObject, root: string): string {
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty
    return `${pathOf(`${error.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`, root)}: required property missing`
  }
  if (error.keyword === 'enum') {
    const values = (error.params as { allowedValues: unknown[] }).allowedValues
    return `${pathOf(error.instancePath, root)}: expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`
  }
  return `${pathOf(error.instancePath, root)}: ${error.message ?? error.keyword}`
}

/** Keywords that name another schema: only compiling tells whether they resolve (or clash with another `$id`). */
const REFERRING = new Set(['$ref', '$dynamicRef', '$id'])

/**
 * What compiling would refuse besides the meta-schema and references: a
 * `pattern` (or `patternProperties` key) that is not a regular expression
 * (Ajv compiles them with the `u` flag). Returns whether the schema refers
 * to other schemas.
 */
function checkPatterns (node: unknown, where: string): boolean {
  if (Array.isArray(node)) return node.reduce<boolean>((refers, item) => checkPatterns(item, where) || refers, false)
  if (node === null || typeof node !== 'object') return false
  let refers = false
  for (const [key, value] of Object.entries(node)) {
    if (key === 'default' || key === 'const' || key === 'examples' || key === 'enum') continue // data, not schemas
    if (REFERRING.has(key)) refers = true
    if (key === 'pattern' && typeof value === 'string') checkPattern(value, where)
    if (key === 'patternProperties' && value !== null && typeof value === 'object') {
      for (const pattern of Object.keys(value)) checkPattern(pattern, where)
    }
    if (checkPatterns(value, where)) refers = true
  }
  return refers
}

function checkPattern (pattern: string, where: string): void {
  try {
    RegExp(pattern, 'u')
  } catch (err) {
    throw new FST_MCP_INVALID_DEFINITION(where, `the schema does not compile (${(err as Error).message})`)
  }
}

/**
 * Checks `listed` now and compiles `text` (the same schema as JSON text) on
 * first use, at once when it refers to other schemas (only compiling
 * resolves them). `use.direction` `input` fills in declared defaults (in place).
 */
export function compileJsonSchema (listed: Record<string, unknown>, text: string, use: SchemaUse): Validator {
  checkFormats(listed, use.where)
  checkJsonSchema(listed, use.where)
  if (!checkPatterns(listed, use.where)) return new CompiledOnFirstUse(compileAjv, text, use)
  return { validate: compileAjv(text, use) }
}

function compileAjv (text: string, use: SchemaUse): (value: unknown) => unknown {
  const { where, root } = use
  // a copy of its own: Ajv keeps the object it compiled
  const schema = JSON.parse(text) as Record<string, unknown>
  const instance = ajv(use.direction === 'input')
  addFormats(instance, schema)
  let compiled: ValidateFunction
  try {
    compiled = instance.compile(schema)
  } catch (err) {
    throw new FST_MCP_INVALID_DEFINITION(where, `the schema does not compile (${(err as Error).message})`)
  }
  function problems (): Invalid {
    const errors = compiled.errors ?? []
    const lines = new Map<string, string>()
    for (const error of errors) {
      const line = problemLine(error, root)
      const path = line.slice(0, line.indexOf(': '))
      if (error.keyword === 'anyOf') {
        // a union of constants (TypeBox's Union of Literals): name the values, not each failed branch
        const values = errors.filter((e) => e.keyword === 'const' && e.instancePath === error.instancePath).map((e) => (e.params as { allowedValue: unknown }).allowedValue)
        if (values.length > 0) lines.set(path, `${path}: expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`)
      }
      if (!lines.has(path)) lines.set(path, line) // the first complaint per path says it best
    }
    return new Invalid([...lines.values()])
  }
  return (value) => withinStack(use, () => compiled(value) ? value : problems())
}
