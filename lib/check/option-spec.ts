/**
 * One declarative checker for everything a user configures at registration:
 * the plugin's options, `authorization`, and the definitions. Each group is
 * described once (each key's type, bounds and default, nested groups);
 * reading a value against its spec checks it, fills the defaults, and names
 * the exact path of the first bad value. Every group refuses keys it does not
 * know, listing the known ones (and the nearest, for a typo).
 */
import type { FastifyRequest } from 'fastify'
import { closestName } from '../common/closest-name.js'

/** Makes the coded error for a bad value at `path` (FST_MCP_INVALID_OPTION, FST_MCP_INVALID_DEFINITION...). */
export type Fail = (path: string, message: string) => Error

/** Where a value sits in the tree, and how a bad one is reported. */
export class At {
  constructor (readonly path: string, readonly fail: Fail, readonly noun = 'option') {}

  key (name: string): At {
    return new At(this.path === '' ? name : `${this.path}.${name}`, this.fail, this.noun)
  }

  index (i: number): At {
    return new At(`${this.path}[${i}]`, this.fail, this.noun)
  }

  entry (key: string): At {
    return new At(`${this.path}[${JSON.stringify(key)}]`, this.fail, this.noun)
  }

  error (message: string): never {
    throw this.fail(this.path, message)
  }

  expected (spec: { expects: string }): never {
    return this.error(`expected ${spec.expects}`)
  }
}

export type SpecValue<S> = S extends Spec<infer T> ? T : never

export interface Spec<T> {
  /** The expected value as a message says it, e.g. "an integer from 1 to 60000 (milliseconds)". */
  readonly expects: string
  /** Listed without "?" in its group's description. */
  readonly required?: boolean
  /** Checks `value` (undefined: absent, so the default) and returns what the code uses. */
  read: (value: unknown, at: At) => T
}

/** Checks `value` against `spec`; the root's path is `path` ('' for keys at the root). */
export function check<T> (spec: Spec<T>, value: unknown, path: string, fail: Fail, noun?: string): T {
  return spec.read(value, new At(path, fail, noun))
}

/** Absent: the default, else an error when required, else undefined. */
interface Presence<T> {
  default?: T
  required?: true
}
type Value<T, P> = P extends { default: T } | { required: true } ? T : T | undefined

function leaf<T, P extends Presence<T>> (expects: string, accepts: (value: unknown) => boolean, presence: P): Spec<Value<T, P>> {
  const spec: Spec<Value<T, P>> = {
    expects,
    required: presence.required,
    read: (value, at) => {
      if (value === undefined) {
        if (presence.default !== undefined) return presence.default as Value<T, P>
        if (presence.required === true) at.error(`is required: expected ${expects}`)
        return undefined as Value<T, P>
      }
      if (!accepts(value)) at.expected(spec)
      return value as Value<T, P>
    }
  }
  return spec
}

export interface IntegerOptions extends Presence<number> {
  min: number
  max?: number
  /** What the number counts, shown in messages: "milliseconds", "bytes". */
  unit?: string
}

export function integer<P extends IntegerOptions> (options: P): Spec<Value<number, P>> {
  const { min, max, unit } = options
  const range = max !== undefined
    ? `an integer from ${min} to ${max}`
    : min === 1 ? 'a positive integer' : min === 0 ? 'a non-negative integer' : `an integer of at least ${min}`
  return leaf(unit === undefined ? range : `${range} (${unit})`,
    (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min && (max === undefined || v <= max), options)
}

export function boolean<P extends Presence<boolean>> (options: P): Spec<Value<boolean, P>> {
  return leaf('a boolean', (v) => typeof v === 'boolean', options)
}

export interface StringOptions extends Presence<string> {
  nonEmpty?: boolean
  /** Must parse as an absolute URL. */
  url?: boolean
  /** Overrides the generated description. */
  expects?: string
}

export function string<P extends StringOptions> (options: P): Spec<Value<string, P>> {
  const expects = options.expects ?? (options.url === true ? 'a URL' : options.nonEmpty === true ? 'a non-empty string' : 'a string')
  return leaf(expects, (v) => typeof v === 'string' && (options.nonEmpty !== true || v.length > 0) && (options.url !== true || URL.canParse(v)), options)
}

export function oneOf<const V extends string, P extends Presence<V>> (values: readonly V[], options: P): Spec<Value<V, P>> {
  return leaf(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, (v) => values.includes(v as V), options)
}

/** A function; `expects` says what it is called with and returns. */
export function func<F extends (...args: any[]) => unknown, P extends Presence<F> = Presence<F>> (expects: string, options: P = {} as P): Spec<Value<F, P>> {
  return leaf(expects, (v) => typeof v === 'function', options)
}

/** An object whose `methods` are functions (a pluggable part). */
export function withMethods<T> (methods: readonly string[], optionalMethods: readonly string[] = []): Spec<T | undefined> {
  const expects = `an object with ${methods.join(', ')}${optionalMethods.length > 0 ? ` (and optionally ${optionalMethods.join(', ')})` : ''} methods`
  return leaf<T, Presence<T>>(expects, (v) => v !== null && typeof v === 'object' &&
    methods.every((m) => typeof (v as Record<string, unknown>)[m] === 'function') &&
    optionalMethods.every((m) => (v as Record<string, unknown>)[m] === undefined || typeof (v as Record<string, unknown>)[m] === 'function'), {})
}

/** A value, or a function of the request that computes it per request (checked when called). */
export function perRequest<T> (spec: Spec<T>): Spec<T | ((request: FastifyRequest) => NonNullable<T>)> {
  return {
    expects: `${spec.expects} or a function of the request`,
    read: (value, at) => typeof value === 'function' ? value as (request: FastifyRequest) => NonNullable<T> : spec.read(value, at)
  }
}

/** The same check, then `finish` turns the value into the shape the code uses. */
export function map<T, R> (spec: Spec<T>, finish: (value: T, at: At) => R): Spec<R> {
  return { expects: spec.expects, required: spec.required, read: (value, at) => finish(spec.read(value, at), at) }
}

export interface ArrayOptions {
  nonEmpty?: boolean
  required?: true
  /** Overrides the generated description. */
  expects?: string
}

/** An array checked item by item (each named by its index); absent is undefined unless required. */
export function array<T> (item: Spec<T>, options: ArrayOptions & { required: true }): Spec<T[]>
export function array<T> (item: Spec<T>, options?: ArrayOptions): Spec<T[] | undefined>
export function array<T> (item: Spec<T>, options: ArrayOptions = {}): Spec<T[] | undefined> {
  const spec: Spec<T[] | undefined> = {
    expects: options.expects ?? `${options.nonEmpty === true ? 'a non-empty' : 'an'} array (each ${item.expects})`,
    required: options.required,
    read: (value, at) => {
      if (value === undefined) return options.required === true ? at.error(`is required: expected ${spec.expects}`) : undefined
      if (!Array.isArray(value) || (options.nonEmpty === true && value.length === 0)) at.expected(spec)
      return (value as unknown[]).map((v, i) => item.read(v, at.index(i)))
    }
  }
  return spec
}

/** An object of any keys whose values follow `item` (each named by its key). */
export function record<T> (item: Spec<T>, expects?: string): Spec<Record<string, T> | undefined> {
  const spec: Spec<Record<string, T> | undefined> = {
    expects: expects ?? `an object (each value ${item.expects})`,
    read: (value, at) => {
      if (value === undefined) return undefined
      if (!isPlainObject(value)) at.expected(spec)
      const out: Record<string, T> = {}
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) out[key] = item.read(v, at.entry(key))
      return out
    }
  }
  return spec
}

/** `literal` as is (e.g. `true` for "allow any"), else `spec` (whose description says both). */
export function or<T, L extends boolean | string> (literal: L, spec: Spec<T>): Spec<T | L> {
  return {
    expects: spec.expects,
    required: spec.required,
    read: (value, at) => value === literal ? literal : spec.read(value, at)
  }
}

/** A group that is off (`false`), on with its defaults (`true`), or on with settings (an object); `on` when absent. */
export function toggle<T> (spec: Spec<T>, on: boolean): Spec<T | undefined> {
  const toggled: Spec<T | undefined> = {
    expects: `true, false or ${spec.expects}`,
    read: (value, at) => {
      const given = value === undefined ? on : value
      if (given === false) return undefined
      if (given !== true && !isPlainObject(given)) at.expected(toggled)
      return spec.read(given === true ? undefined : given, at)
    }
  }
  return toggled
}

/** Absent stays undefined (instead of the spec's defaults). */
export function maybe<T> (spec: Spec<T>): Spec<T | undefined> {
  return { expects: spec.expects, read: (value, at) => value === undefined ? undefined : spec.read(value, at) }
}

/** A check that fits no other shape: `read` gets undefined when the value is absent. */
export function custom<T> (expects: string, read: (value: unknown, at: At) => T, required?: true): Spec<T> {
  return { expects, read, required }
}

type Fields = Record<string, Spec<any>>
export type GroupValue<F extends Fields> = { [K in keyof F]: F[K] extends Spec<infer T> ? T : never }

export interface GroupOptions {
  /** Keys another reader of the same object takes (Fastify's `prefix`...): allowed, not listed, not read. */
  ignore?: readonly string[]
  required?: true
}

export interface FinishedGroupOptions<F extends Fields, R> extends GroupOptions {
  /** Checks between keys, defaults computed from other keys, and the shape the code uses. */
  finish: (value: GroupValue<F>, at: At) => R
}

/**
 * An object with these keys and no others; absent is the same as `{}` (all
 * defaults) unless required.
 */
export function group<F extends Fields, R> (fields: F, options: FinishedGroupOptions<F, R>): Spec<R>
export function group<F extends Fields> (fields: F, options?: GroupOptions): Spec<GroupValue<F>>
export function group<F extends Fields, R> (fields: F, options: GroupOptions & { finish?: (value: GroupValue<F>, at: At) => R } = {}): Spec<R | GroupValue<F>> {
  const keys = Object.keys(fields)
  const known = new Set(keys)
  const ignored = new Set(options.ignore ?? [])
  const spec: Spec<R | GroupValue<F>> = {
    expects: `an object { ${keys.map((k) => fields[k]?.required === true ? k : `${k}?`).join(', ')} }`,
    required: options.required,
    read: (value, at) => {
      if (value === undefined && options.required === true) at.error(`is required: expected ${spec.expects}`)
      // Only absent means the defaults: null is a mistake like any other.
      const given = value === undefined ? {} : value
      if (!isPlainObject(given)) at.expected(spec)
      const object = given as Record<string, unknown>
      for (const key of Object.keys(object)) {
        if (!known.has(key) && !ignored.has(key)) {
          const near = nearest(key, keys)
          at.key(key).error(`unknown ${at.noun} (known: ${keys.join(', ')})${near === undefined ? '' : `; did you mean "${near}"?`}`)
        }
      }
      const out: Record<string, unknown> = {}
      for (const key of keys) out[key] = (fields[key] as Spec<unknown>).read(object[key], at.key(key))
      const checked = out as GroupValue<F>
      return options.finish === undefined ? checked : options.finish(checked, at)
    }
  }
  return spec
}

export function isPlainObject (value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/** The known key a typo most likely meant: the same ignoring case, else the closest within a third of its length in edits (1 to 3). */
function nearest (key: string, known: readonly string[]): string | undefined {
  return closestName(key, known, Math.min(3, Math.max(1, Math.floor(key.length / 3))))
}
