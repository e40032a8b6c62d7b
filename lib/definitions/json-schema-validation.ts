/**
 * Validators for JSON Schemas that are not TypeBox 0.34 builders: plain JSON
 * Schema objects and TypeBox 1.x schemas (which are plain JSON Schema with
 * non-enumerable `~kind` markers). Ajv in its draft 2020-12 mode, the dialect
 * MCP lists, so every keyword is honoured; Fastify already depends on Ajv 8,
 * so it adds nothing to an install. String formats are the ones TypeBox's
 * FormatRegistry knows (formats.ts registers the common ones), so a format
 * means the same whichever way a schema is written.
 *
 * Each compiled schema gets Ajv instances of its own: an instance keeps
 * every function it compiled for as long as it lives (its code scope holds
 * them, whatever `removeSchema` is told), so a shared one would keep the
 * validators of tools removed at runtime forever. An instance of its own is
 * freed with the last definition using it. It checks values in first-error
 * mode; the instance listing every failing path is compiled on the first
 * failing value small enough to list (see `DETAILED_VALUES`).
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js'
import { FormatRegistry } from '../typebox/index.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { registerCommonFormats, unknownFormats, unknownFormatsProblem } from './formats.js'
import { clip } from '../protocol/describe.js'
import { loadOnFirstUse } from '../common/load-on-first-use.js'
import { type Check, CompiledOnFirstUse, constants, detailed, type FirstProblem, type Invalid, ProblemList, readablePath, type SchemaUse, unlocated, type Validator, withinStack } from './validation.js'

/** Ajv's 2020-12 build is loaded with the first plain JSON Schema defined, not with the package. */
const ajv2020 = loadOnFirstUse<typeof import('ajv/dist/2020.js')>('ajv/dist/2020.js')

const DRAFT_2020_12 = /^https:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/

let meta: Ajv2020 | undefined

/** The instance that checks schemas against the 2020-12 meta-schema (it compiles nothing else, so it keeps nothing per schema). */
function metaChecker (): Ajv2020 {
  meta ??= new (ajv2020().Ajv2020)({ strict: false, logger: false })
  return meta
}

/**
 * A new instance for one schema. Schemas were checked against the
 * meta-schema when defined, so it does not check them again (which would
 * compile the meta-schema in every instance).
 */
function newAjv (applyDefaults: boolean, allErrors: boolean): Ajv2020 {
  // verbose: an error carries its schema (a union's constants are read from it)
  return new (ajv2020().Ajv2020)({ allErrors, strict: false, useDefaults: applyDefaults, validateSchema: false, verbose: true, logger: false })
}

function checkFormats (schema: unknown, where: string): void {
  registerCommonFormats()
  const unknown = unknownFormats(schema)
  if (unknown.size > 0) {
    throw new FST_MCP_INVALID_DEFINITION(where, unknownFormatsProblem(unknown))
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
  const instance = metaChecker()
  if (instance.validateSchema(schema) !== true) {
    throw new FST_MCP_INVALID_DEFINITION(where, `not a valid JSON Schema 2020-12: ${instance.errorsText(instance.errors)}`)
  }
}

/** The path quotes the client's keys: a few dozen characters of it. */
function pathOf (pointer: string, root: string): string {
  return clip(readablePath(pointer, root))
}

function problemLine (error: ErrorObject, root: string): string {
  if (error.keyword === 'required') return `${pathOf(pointerOf(error), root)}: required property missing`
  if (error.keyword === 'additionalProperties') return `${pathOf(pointerOf(error), root)}: unexpected property`
  if (error.keyword === 'enum') {
    const values = (error.params as { allowedValues: unknown[] }).allowedValues
    return `${pathOf(error.instancePath, root)}: expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`
  }
  return `${pathOf(error.instancePath, root)}: ${error.message ?? error.keyword}`
}

/** Where the problem is: a missing or unexpected property's own place, else the value's. */
function pointerOf (error: ErrorObject): string {
  const params = error.params as { missingProperty?: string, additionalProperty?: string }
  const property = error.keyword === 'required' ? params.missingProperty : error.keyword === 'additionalProperties' ? params.additionalProperty : undefined
  return property === undefined ? error.instancePath : `${error.instancePath}/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`
}

/**
 * Ajv's errors as problem lines, in one pass. A union of constants
 * (TypeBox's Union of Literals) fails as an error per failed branch, then
 * the `anyOf` error, whose schema (Ajv's `verbose`) names the values: its
 * one line ("expected one of") takes the place of its branches'.
 * `stopped`: Ajv stopped at the first problem (first-error mode).
 */
export function problemsOf (errors: readonly ErrorObject[], root: string, stopped: boolean): Invalid {
  const list = new ProblemList()
  for (const error of errors) {
    const pointer = pointerOf(error)
    const values = error.keyword === 'anyOf' ? constants({ anyOf: error.schema }) : undefined
    if (values !== undefined) list.replace(pointer, () => `${pathOf(error.instancePath, root)}: expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`)
    else list.add(pointer, () => problemLine(error, root))
  }
  return list.invalid(stopped, `${root}: invalid`)
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
  const check = compileAjv(text, use)
  return { validate: (value, _bounds, bodyBytes) => check(value, bodyBytes) }
}

/** Compiles `schema` (a copy of its own: Ajv keeps the object it compiled) in a new instance. */
function compileIn (instance: Ajv2020, text: string, where: string): ValidateFunction {
  const schema = JSON.parse(text) as Record<string, unknown>
  addFormats(instance, schema)
  try {
    return instance.compile(schema)
  } catch (err) {
    throw new FST_MCP_INVALID_DEFINITION(where, `the schema does not compile (${(err as Error).message})`)
  }
}

function compileAjv (text: string, use: SchemaUse): Check {
  const { where, root } = use
  const applyDefaults = use.direction === 'input'
  const first = compileIn(newAjv(applyDefaults, false), text, where)
  let every: ValidateFunction | undefined
  function problems (value: unknown, bodyBytes: number | undefined): Invalid {
    const stopped = first.errors ?? []
    if (!detailed(value, bodyBytes)) return problemsOf(stopped, root, true)
    every ??= compileIn(newAjv(applyDefaults, true), text, where)
    // valid now only if a keyword's outcome changed between the two runs: the first run's problem stands
    return every(value) ? problemsOf(stopped, root, true) : problemsOf(every.errors ?? [], root, false)
  }
  return (value, bodyBytes) => withinStack(use, () => first(value) ? value : problems(value, bodyBytes))
}

/**
 * The first problem Ajv finds (first-error mode) in a value that failed
 * another validator (TypeBox 0.34's, whose error iterator cannot stop
 * early); compiled on the first such value. A schema Ajv cannot compile, or
 * reads differently (a custom TypeBox kind), gets the line without a place.
 */
export function firstProblemFinder (text: string, use: SchemaUse): FirstProblem {
  let first: ValidateFunction | null | undefined
  return (value, bodyBytes) => {
    if (first === undefined) {
      try {
        first = compileIn(newAjv(false, false), text, use.where)
      } catch {
        first = null
      }
    }
    return first === null || first(value) ? unlocated(use.root, bodyBytes) : problemsOf(first.errors ?? [], use.root, true)
  }
}
