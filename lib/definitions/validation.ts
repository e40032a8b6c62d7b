/**
 * Validators for defined tools, prompts and resources. TypeBox 0.34 schemas
 * use TypeBox's compiler: it compiles a schema about ten times faster than
 * Ajv and checks valid input faster too (measured by `bench/validators.ts`,
 * see the README); other JSON Schemas go to Ajv (json-schema-validation.ts),
 * Standard Schemas to their own library (standard-validation.ts). A schema
 * is checked when the definition is made (a bad one fails registration) and
 * compiled on its first use, so a catalogue of thousands of tools registers
 * without compiling what is never called. Failures are rare, so their
 * readable description is only built when one happens, and only as far as
 * it is shown: every failing path of a value of at most `DETAILED_VALUES`
 * values (the first `LISTED_PROBLEMS` as lines, the rest counted), the first
 * problem found of a larger one (a 1 MiB array of wrong items must not cost
 * half a million error objects to answer ten lines). Arguments of a body
 * over `DETAILED_BODY_BYTES` get the first problem without their values
 * being counted: walking the keys of a 1 MiB object costs as much again as
 * parsing them did.
 */
import { Kind, type TSchema, TypeGuard, TypeRegistry } from '../typebox/index.js'
import { TypeCompiler, type TypeCheck } from '../typebox/compiler.js'
import { FST_MCP_INVALID_DEFINITION } from '../errors.js'
import { clip, LISTED_PROBLEMS } from '../protocol/describe.js'
import { ErrorCode, McpError } from '../protocol/mcp-error.js'
import { isThenable } from '../common/maybe-promise.js'
import { registerBeforeDefining, registerCommonFormats, unknownFormats, unknownFormatsProblem } from './formats.js'
import { fillNestedDefaults, loadNestedDefaults } from './nested-defaults.js'
import { valueCountWithin } from './value-count.js'

/**
 * A value that failed validation: a line per failing path (path and what it
 * expected), at most `LISTED_PROBLEMS` of them, and how many more paths
 * failed; `stopped` when the check stopped at the first problem (a value
 * over `DETAILED_VALUES` values: the rest were not looked for).
 */
export class Invalid {
  constructor (readonly problems: readonly string[], readonly more = 0, readonly stopped = false) {}
}

/** Values a failing value may hold and still have all its problems looked for (beyond: the first found). */
export const DETAILED_VALUES = 1024

/** Bytes a request's body may have for its failing arguments' values to be counted (see `detailed`). */
export const DETAILED_BODY_BYTES = 64 * 1024

/**
 * The length of the body `request` declares (`Content-Length`), for
 * `Validator.validate`: `Infinity` when it declares none (a chunked body),
 * 0 without a request (a handler called directly).
 */
export function declaredBodyBytes (request: { readonly headers: Readonly<Record<string, unknown>> } | undefined): number {
  if (request === undefined) return 0
  const length = Number(request.headers['content-length'])
  return Number.isSafeInteger(length) && length >= 0 ? length : Infinity
}

/**
 * Whether a failing value is small enough to look for all its problems:
 * it came in a body of at most `DETAILED_BODY_BYTES` (larger ones are not
 * walked at all) and holds at most `DETAILED_VALUES` values.
 */
export function detailed (value: unknown, bodyBytes = 0): boolean {
  return bodyBytes <= DETAILED_BODY_BYTES && detailedCount(valueCountWithin(value, DETAILED_VALUES), bodyBytes)
}

/** `detailed` for a value already counted (`count`, undefined when past the count's bound): no second walk. */
export function detailedCount (count: number | undefined, bodyBytes = 0): boolean {
  return bodyBytes <= DETAILED_BODY_BYTES && count !== undefined && count <= DETAILED_VALUES
}

/**
 * Builds an `Invalid` in one pass over a library's errors: the first
 * complaint per path says it best, so later ones for a path are skipped;
 * only the lines shown are built, the other paths are counted.
 */
export class ProblemList {
  readonly #lines = new Map<string, () => string>()

  /** The problem at `path` (any string naming it), unless one was added for it; `line` is called only if it is shown. */
  add (path: string, line: () => string): void {
    if (!this.#lines.has(path)) this.#lines.set(path, line)
  }

  /** The problem at `path`, in place of what was added for it (a union's one line for its failed branches'). */
  replace (path: string, line: () => string): void {
    this.#lines.set(path, line)
  }

  /** `stopped`: the library stopped at the first problem (the rest are not known). */
  invalid (stopped: boolean, fallback: string): Invalid {
    if (this.#lines.size === 0) return new Invalid([fallback], 0, stopped)
    const shown: string[] = []
    for (const line of this.#lines.values()) {
      if (shown.length === LISTED_PROBLEMS) break
      shown.push(line())
    }
    return new Invalid(shown, this.#lines.size - shown.length, stopped)
  }
}

/** The one line for a failing value too large to locate its problems in (see `detailed`). */
export function unlocated (root: string, bodyBytes = 0): Invalid {
  const why = bodyBytes > DETAILED_BODY_BYTES ? `a body over ${DETAILED_BODY_BYTES / 1024} KiB` : `more than ${DETAILED_VALUES} values`
  return new Invalid([`${root}: invalid (${why}: the problems were not located)`])
}

/** Bounds on one call's arguments, from the endpoint's options. */
export interface ArgumentBounds {
  /** Values the arguments may hold when a Standard Schema library validates them (`limits.maxArgumentValues`). */
  readonly maxValues: number
}

export interface Validator {
  /**
   * The value to hand on (declared defaults filled in; for a Standard Schema,
   * the library's output) or an `Invalid`. A Standard Schema library with
   * asynchronous checks answers a promise of either. `bodyBytes`: the
   * length of the body the value came in (`declaredBodyBytes`), which
   * bounds how far a failure is described (see `detailed`).
   */
  validate (value: unknown, bounds?: ArgumentBounds, bodyBytes?: number): unknown
}

/** One schema's use: named in errors, naming the value in problem lines, and whose value it checks. */
export interface SchemaUse {
  /** Named in every error (`tool "add" (input)`). */
  readonly where: string
  /** Names the value as a whole in problem lines (`arguments`, `result`). */
  readonly root: string
  /**
   * `input`: a client's value (declared defaults filled in; a fault in it is
   * the client's). `output`: the handler's result (checked as it is; a fault
   * in it is the server's).
   */
  readonly direction: 'input' | 'output'
}

/**
 * Runs a check that recurses into a value; a value nested deeper than the
 * stack allows (met by a recursive schema) is its sender's fault: a client's
 * arguments answer -32602 with the request's id, a handler's result is a
 * result that does not match (the server's fault, logged, -32603).
 */
export function withinStack<R> (use: SchemaUse, run: () => R): R | Invalid {
  try {
    return run()
  } catch (err) {
    if (!(err instanceof RangeError)) throw err
    if (use.direction === 'output') return new Invalid([`${use.root}: nested too deeply to check`])
    throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${use.root} are nested too deeply to check`)
  }
}

/**
 * Compiles on first use: `compile(schema, use)` runs once, when the first
 * value comes. A failure there (a schema the definition-time checks let
 * through) answers that call as a server fault and is tried again on the next.
 */
export class CompiledOnFirstUse<S> implements Validator {
  #check: Check | undefined
  constructor (
    private readonly compile: (schema: S, use: SchemaUse) => Check,
    private readonly schema: S,
    private readonly use: SchemaUse
  ) {}

  validate (value: unknown, _bounds?: ArgumentBounds, bodyBytes?: number): unknown {
    this.#check ??= this.compile(this.schema, this.use)
    return this.#check(value, bodyBytes)
  }
}

/** A compiled schema's check: the value to hand on or an `Invalid` (`bodyBytes`: see `Validator.validate`). */
export type Check = (value: unknown, bodyBytes?: number) => unknown

/** A JSON pointer (`/labels/1`) as a readable path (`labels[1]`); the root is `root`. */
export function readablePath (pointer: string, root: string): string {
  if (pointer === '') return root
  let out = ''
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (/^\d+$/.test(segment)) out += `[${segment}]`
    else out += out === '' ? segment : `.${segment}`
  }
  return out
}

/** The values of an `enum`, or of an `anyOf` whose every member is a `const`; else undefined. */
export function constants (schema: unknown): unknown[] | undefined {
  const s = schema as { anyOf?: unknown[], enum?: unknown[] }
  if (Array.isArray(s.enum)) return s.enum
  if (!Array.isArray(s.anyOf)) return undefined
  const values: unknown[] = []
  for (const member of s.anyOf) {
    if (member === null || typeof member !== 'object' || !Object.hasOwn(member, 'const')) return undefined
    values.push((member as { const: unknown }).const)
  }
  return values
}

/** What TypeBox says, phrased for a model reading a tool error. */
function expectation (message: string, schema: unknown): string {
  if (message === 'Expected required property') {
    const type = (schema as { type?: unknown }).type
    return typeof type === 'string' ? `required property missing (expected ${type})` : 'required property missing'
  }
  if (message === 'Expected union value' || message.startsWith('Expected value to be one of')) {
    const values = constants(schema)
    if (values !== undefined) return `expected one of ${values.map((v) => JSON.stringify(v)).join(', ')}`
  }
  return message.charAt(0).toLowerCase() + message.slice(1)
}

type Defaults = (value: unknown) => unknown

/**
 * How to fill in declared defaults. The usual case, defaults only on the
 * root object's own properties, is a loop over those keys (~tens of ns);
 * TypeBox's `Value.Default` walks the whole schema per call (~2 µs), so it
 * is kept for defaults nested deeper, and its import starts now (worked out
 * when the definition is made, so it is loaded before the first call:
 * nested-defaults.ts). Before it is loaded the result is a promise: fill in
 * again once it settles.
 */
function defaultsOf (schema: TSchema): Defaults | undefined {
  if (!hasKeyword(schema, 'default')) return undefined
  const properties = (schema as { type?: unknown, properties?: Record<string, unknown> }).properties
  const nested = Object.hasOwn(schema, 'default') || (schema as { type?: unknown }).type !== 'object' || properties === undefined ||
    Object.keys(schema).some((key) => key !== 'properties' && key !== 'default' && hasKeyword((schema as Record<string, unknown>)[key], 'default')) ||
    Object.values(properties).some((property) => {
      const { default: _own, ...rest } = property as Record<string, unknown>
      return hasKeyword(rest, 'default')
    })
  if (nested) {
    void loadNestedDefaults()
    return (value) => fillNestedDefaults(schema, value)
  }
  const plan: Array<[string, unknown]> = Object.entries(properties)
    .filter(([, property]) => Object.hasOwn(property as object, 'default'))
    .map(([key, property]) => [key, (property as { default: unknown }).default])
  return (value) => {
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [key, fallback] of plan) {
        if (!Object.hasOwn(value, key)) {
          // a fresh copy each time: a handler may modify what it receives
          (value as Record<string, unknown>)[key] = fallback !== null && typeof fallback === 'object' ? structuredClone(fallback) : fallback
        }
      }
    }
    return value
  }
}

function hasKeyword (schema: unknown, keyword: string): boolean {
  if (Array.isArray(schema)) return schema.some((item) => hasKeyword(item, keyword))
  if (schema === null || typeof schema !== 'object') return false
  if (Object.hasOwn(schema, keyword)) return true
  return Object.values(schema).some((value) => hasKeyword(value, keyword))
}

/** True for a TypeBox 0.34 schema (`@sinclair/typebox`, either its ESM or its CommonJS build: `Kind` is a global symbol). */
export function isTypeBoxLegacySchema (schema: unknown): schema is TSchema {
  return schema !== null && typeof schema === 'object' && typeof (schema as { [Kind]?: unknown })[Kind] === 'string'
}

/** The kinds TypeBox's compiler knows itself; any other needs a TypeRegistry entry. */
const COMPILED_KINDS = new Set(['Any', 'Argument', 'Array', 'AsyncIterator', 'BigInt', 'Boolean', 'Constructor', 'Date', 'Function', 'Import',
  'Integer', 'Intersect', 'Iterator', 'Literal', 'Never', 'Not', 'Null', 'Number', 'Object', 'Promise', 'Record', 'Ref', 'RegExp', 'String',
  'Symbol', 'TemplateLiteral', 'This', 'Tuple', 'Undefined', 'Union', 'Uint8Array', 'Unknown', 'Void'])
/** Kinds that point elsewhere: only compiling tells whether they resolve. */
const REFERRING_KINDS = new Set(['Ref', 'This', 'Import'])

/**
 * Whether compiling can fail for more than `TypeGuard.IsSchema` and the kind
 * check tell: a schema with references (`Type.Ref`, `Type.Recursive`,
 * modules). Throws for a kind the compiler does not know.
 */
function hasReferences (node: unknown, where: string): boolean {
  if (Array.isArray(node)) return node.some((item) => hasReferences(item, where))
  if (node === null || typeof node !== 'object') return false
  const kind = (node as { [Kind]?: unknown })[Kind]
  if (typeof kind === 'string') {
    if (!COMPILED_KINDS.has(kind) && !TypeRegistry.Has(kind)) {
      throw new FST_MCP_INVALID_DEFINITION(where, `the schema does not compile (unknown kind "${kind}": ${registerBeforeDefining('TypeRegistry')})`)
    }
    if (REFERRING_KINDS.has(kind)) return true
  }
  for (const key of Object.keys(node)) {
    // data, not schemas
    if (key !== 'default' && key !== 'const' && key !== 'examples' && key !== 'enum' && hasReferences((node as Record<string, unknown>)[key], where)) return true
  }
  return false
}

/** Finds the first problem of a failing value where the schema's own validator cannot stop at the first. */
export type FirstProblem = (value: unknown, bodyBytes?: number) => Invalid

/**
 * Checks `schema` (a TypeBox 0.34 schema) now and compiles it on first use
 * (at once when it has references, which only compiling resolves).
 * `use.direction` `input` fills in declared defaults (in place) first.
 * `firstProblem` describes a failing value too large to look for all its
 * problems in (TypeBox's error iterator cannot stop early where a long
 * valid stretch comes first).
 */
export function compileValidator (schema: TSchema, use: SchemaUse, firstProblem: FirstProblem = (_value, bodyBytes) => unlocated(use.root, bodyBytes)): Validator {
  const where = use.where
  registerCommonFormats()
  const formats = unknownFormats(schema)
  if (formats.size > 0) {
    throw new FST_MCP_INVALID_DEFINITION(where, unknownFormatsProblem(formats))
  }
  if (!TypeGuard.IsSchema(schema)) throw new FST_MCP_INVALID_DEFINITION(where, 'the schema does not compile (not a well-formed TypeBox schema)')
  const defaults = use.direction === 'input' ? defaultsOf(schema) : undefined
  const compile = (s: TSchema, u: SchemaUse) => compileTypeBox(s, u, firstProblem, defaults)
  if (!hasReferences(schema, where)) return new CompiledOnFirstUse(compile, schema, use)
  const check = compile(schema, use)
  return { validate: (value, _bounds, bodyBytes) => check(value, bodyBytes) }
}

/** `defaults`: how to fill in the declared defaults of an input (`defaultsOf`), none for an output. */
function compileTypeBox (schema: TSchema, use: SchemaUse, firstProblem: FirstProblem, defaults: Defaults | undefined): Check {
  const root = use.root
  let compiled: TypeCheck<TSchema>
  try {
    compiled = TypeCompiler.Compile(schema)
  } catch (err) {
    throw new FST_MCP_INVALID_DEFINITION(use.where, `the schema does not compile (${(err as Error).message})`)
  }
  function problems (value: unknown, bodyBytes: number | undefined): Invalid {
    // TypeBox's error iterator is many times slower than its check and walks to the first problem: not on a large value.
    if (!detailed(value, bodyBytes)) return firstProblem(value, bodyBytes)
    const list = new ProblemList()
    for (const error of compiled.Errors(value)) {
      // the path quotes the client's keys: a few dozen characters of each line's
      list.add(error.path, () => `${clip(readablePath(error.path, root))}: ${expectation(error.message, error.schema)}`)
    }
    return list.invalid(false, `${root}: invalid`)
  }
  // Defaults are applied only when the schema declares some: the common case pays nothing.
  if (defaults === undefined) return (value, bodyBytes) => withinStack(use, () => compiled.Check(value) ? value : problems(value, bodyBytes))
  const check: Check = (value, bodyBytes) => withinStack(use, () => {
    const filled = defaults(value)
    // nested defaults not loaded yet (a call in the tick of the definition): checked once they are
    if (isThenable(filled)) return filled.then(() => check(value, bodyBytes))
    return compiled.Check(filled) ? value : problems(value, bodyBytes)
  })
  return check
}
