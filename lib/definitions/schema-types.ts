/**
 * The schemas a definition accepts, as types: TypeBox 0.34
 * (`@sinclair/typebox`), TypeBox 1.x (`typebox`), any Standard Schema library
 * that also implements Standard JSON Schema (zod 4, arktype, valibot through
 * `@valibot/to-json-schema`), a plain valibot schema (listed through that
 * converter when it is installed) and plain JSON Schema objects.
 *
 * Everything here is structural and imports no schema library: a type from
 * the user's copy of a library (its ESM or its CommonJS declarations, any
 * patch version) matches as well as one from ours, so a CommonJS project never
 * sees two unrelated `TObject` types.
 */

/** Standard Schema v1 + Standard JSON Schema v1 (standardschema.dev): the members the helpers use. */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: string
    readonly validate: (value: unknown) => unknown
    readonly jsonSchema: {
      readonly input: (options: { readonly target: 'draft-2020-12' }) => Record<string, unknown>
      readonly output: (options: { readonly target: 'draft-2020-12' }) => Record<string, unknown>
    }
    readonly types?: { readonly input: Input, readonly output: Output } | undefined
  }
}

/**
 * A plain valibot schema (Standard Schema without its JSON Schema): accepted
 * when `@valibot/to-json-schema` is installed, which lists it (checked when
 * the definition is made).
 */
export interface ValibotSchema<Input = unknown, Output = Input> {
  readonly '~standard': {
    readonly version: 1
    readonly vendor: 'valibot'
    readonly validate: (value: unknown) => unknown
    readonly types?: { readonly input: Input, readonly output: Output } | undefined
  }
}

/** A TypeBox 0.34 schema: it carries its static type in the phantom `static` member. */
export interface TypeBoxLegacySchema {
  readonly static: unknown
  readonly params: unknown[]
}

/**
 * A plain JSON Schema (2020-12) object. Declared inline or `as const`, the
 * handler's arguments are typed from it; otherwise they are `unknown` values.
 */
export interface JsonSchema {
  readonly '~standard'?: never
  readonly [keyword: string]: any
}

/** The root of a tool's `input` / `output` or a prompt's `arguments`: the spec wants an object. */
export interface JsonObjectSchema extends JsonSchema {
  readonly type: 'object'
}

/**
 * What `input`, `output` and prompt `arguments` accept: a Standard Schema that
 * can give its JSON Schema (or a plain valibot schema), or a JSON Schema object with `type: 'object'`,
 * which TypeBox objects of either line are (a TypeBox 1.x schema is typed from
 * its JSON Schema shape and its `~optional` / `~unsafe` markers, as TypeBox's
 * own `Static` does).
 */
export type ObjectSchema = StandardJsonSchema | ValibotSchema | JsonObjectSchema

/**
 * A schema as written when it is one; otherwise what is accepted, so the
 * definition does not compile. A definition typed without its schemas
 * (`ToolDefinition`, `ToolDefinition<any, any>`) is checked when registered.
 */
export type Checked<S> = unknown extends S ? S : S extends ObjectSchema ? S : ObjectSchema

type Simplify<T> = { [K in keyof T]: T[K] } & {}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

type JsonTypeName<N> =
  N extends 'string' ? string
    : N extends 'number' | 'integer' ? number
      : N extends 'boolean' ? boolean
        : N extends 'null' ? null
          : N extends 'array' ? unknown[]
            : N extends 'object' ? Record<string, unknown>
              : unknown

type MembersOf<L, D extends unknown[]> = L extends readonly unknown[] ? { [I in keyof L]: FromJsonSchema<L[I], D> }[number] : never

type RequiredKeys<S> = S extends { readonly required: readonly (infer K)[] } ? K : never

/**
 * Whether property `K` of object schema `S` may be left out: TypeBox 1.x
 * marks optional properties with `~optional` (read that rather than its
 * computed `required` tuple, which is costly to evaluate); plain JSON Schema
 * lists the others in `required`.
 */
type IsOptional<S, P, K> = S extends { readonly '~kind': unknown }
  ? (P extends { readonly '~optional': true } ? true : false)
  : K extends RequiredKeys<S> ? false : true

type ObjectOf<S, D extends unknown[]> = S extends { readonly properties: infer P }
  ? Simplify<
    { -readonly [K in keyof P as IsOptional<S, P[K], K> extends true ? never : K]: FromJsonSchema<P[K], D> } &
    { -readonly [K in keyof P as IsOptional<S, P[K], K> extends true ? K : never]?: FromJsonSchema<P[K], D> }
  >
  : S extends { readonly additionalProperties: infer A extends object } ? Record<string, FromJsonSchema<A, D>>
    : S extends { readonly patternProperties: infer P } ? Record<string, FromJsonSchema<P[keyof P], D>>
      : Record<string, unknown>

type ArrayOf<S, D extends unknown[]> = S extends { readonly prefixItems: infer L extends readonly unknown[] }
  ? { -readonly [I in keyof L]: FromJsonSchema<L[I], D> }
  : S extends { readonly items: infer L extends readonly unknown[] }
    ? { -readonly [I in keyof L]: FromJsonSchema<L[I], D> }
    : S extends { readonly items: infer T } ? Array<FromJsonSchema<T, D>> : unknown[]

type FromType<S, N, D extends unknown[]> =
  N extends 'object' ? ObjectOf<S, D>
    : N extends 'array' ? ArrayOf<S, D>
      : JsonTypeName<N>

/** The value a JSON Schema describes, as far as its literal type tells (`unknown` beyond that; depth-bounded). */
export type FromJsonSchema<S, D extends unknown[] = []> =
  D['length'] extends 12 ? unknown
    : S extends true ? unknown
      : S extends false ? never
        : S extends { readonly '~unsafe': infer T } ? T
          : S extends { readonly const: infer C } ? C
            : S extends { readonly enum: infer E extends readonly unknown[] } ? E[number]
              : S extends { readonly anyOf: infer L } ? MembersOf<L, [...D, 0]>
                : S extends { readonly oneOf: infer L } ? MembersOf<L, [...D, 0]>
                  : S extends { readonly allOf: infer L } ? Simplify<UnionToIntersection<MembersOf<L, [...D, 0]>>>
                    : S extends { readonly type: infer N }
                      ? N extends readonly unknown[] ? { [I in keyof N]: FromType<S, N[I], [...D, 0]> }[number]
                        : string extends N ? unknown : FromType<S, N, [...D, 0]>
                      : unknown

/** The value a handler receives for `schema` (for a Standard Schema: its output type). */
export type Infer<S> =
  S extends { readonly '~standard': { readonly types?: infer T } } ? (NonNullable<T> extends { readonly output: infer O } ? O : unknown)
    : S extends TypeBoxLegacySchema ? (S & { params: [] })['static']
      : FromJsonSchema<S>

/**
 * The object a handler receives for a root `schema`: `Infer`, or any object
 * when the type cannot tell (a plain schema whose literal types were lost).
 */
export type InferObject<S> = 0 extends 1 & S ? any : unknown extends Infer<S> ? Record<string, unknown> : Infer<S>

/** The value a handler returns for an output `schema` (for a Standard Schema: its input type). */
export type InferReturn<S> =
  S extends { readonly '~standard': { readonly types?: infer T } } ? (NonNullable<T> extends { readonly input: infer I } ? I : unknown)
    : Infer<S>
