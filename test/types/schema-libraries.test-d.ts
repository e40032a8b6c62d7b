/**
 * Type-level tests: handler arguments (and what an output tool returns) are
 * typed from every accepted schema kind; a value of no accepted kind does not
 * compile. Checked by `npm run typecheck` (tsc), never run.
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec'
import { Type as LegacyType } from '@sinclair/typebox'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { type } from 'arktype'
import { expectTypeOf } from 'expect-type'
import { type Static, Type } from 'typebox'
import * as v from 'valibot'
import { z } from 'zod'
import { definePrompts } from '../../lib/definitions/prompts.js'
import type { Infer, InferReturn, StandardJsonSchema } from '../../lib/definitions/schema-types.js'
import { defineTools } from '../../lib/definitions/tools.js'

const text = (s: string) => ({ content: [{ type: 'text' as const, text: s }] })

// Plain schemas declared `as const` are typed under TypeScript 5 and 7; written inline, TypeScript 7 types them
// too while TypeScript 5 loses their literal types in the inference (the handler then gets Record<string, unknown>).
const plainInput = { type: 'object', properties: { q: { type: 'string' }, n: { type: ['integer', 'null'] }, mode: { enum: ['a', 'b'] }, list: { type: 'array', items: { type: 'number' } } }, required: ['q'] } as const
const refInput = { type: 'object', properties: { r: { $ref: '#/$defs/r' } } } as const
const okOutput = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } as const
const topicArguments = { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] } as const

// TypeBox 1.x: the same type TypeBox's own Static gives
const modern = Type.Object({
  a: Type.Number(),
  b: Type.Optional(Type.Array(Type.String())),
  c: Type.Union([Type.Literal('x'), Type.Literal('y')]),
  r: Type.Record(Type.String(), Type.Integer()),
  n: Type.Object({ deep: Type.Boolean() }),
  u: Type.Unsafe<Date>({ type: 'string' })
})
expectTypeOf<Infer<typeof modern>>().toEqualTypeOf<Static<typeof modern>>()

defineTools({
  legacy: {
    input: LegacyType.Object({ a: LegacyType.Number(), tags: LegacyType.Optional(LegacyType.Array(LegacyType.String())) }),
    output: LegacyType.Object({ sum: LegacyType.Number() }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ a: number, tags?: string[] }>()
      return { sum: args.a }
    }
  },
  modern: {
    input: modern,
    output: Type.Object({ ok: Type.Boolean() }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<Static<typeof modern>>()
      return { ok: true }
    }
  },
  zod: {
    input: z.object({ q: z.string(), limit: z.number().default(10) }),
    output: z.object({ n: z.number().default(0) }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ q: string, limit: number }>()
      return {} // the output's input type: n may be left to its default
    }
  },
  valibot: {
    input: toStandardJsonSchema(v.object({ q: v.string(), limit: v.optional(v.number(), 10) })),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ q: string, limit: number }>()
      return text(args.q)
    }
  },
  arktype: {
    input: type({ q: 'string', 'limit?': 'number' }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ q: string, limit?: number }>()
      return text(args.q)
    }
  },
  plain: {
    input: plainInput,
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ q: string, n?: number | null, mode?: 'a' | 'b', list?: number[] }>()
      return text(args.q)
    }
  },
  inline: {
    input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    handler: (args) => {
      expectTypeOf(args).toMatchTypeOf<Record<string, unknown>>()
      return text('inline')
    }
  },
  none: {
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, never>>()
      return text('none')
    }
  }
})

// a plain schema whose literal types were widened (not inline, not `as const`) is refused at compile time
const widened = { type: 'object', properties: { q: { type: 'string' } } }
// @ts-expect-error type: string is not type: 'object'
defineTools({ x: { input: widened, handler: () => text('') } })
// `as const` keeps them: arguments typed
const pinned = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } as const
defineTools({ x: { input: pinned, handler: (args) => { expectTypeOf(args).toEqualTypeOf<{ q: string }>(); return text(args.q) } } })
// a schema beyond what the type can tell gives unknown values, not errors
defineTools({ x: { input: refInput, handler: (args) => { expectTypeOf(args).toEqualTypeOf<{ r?: unknown }>(); return text('') } } })

// a plain valibot schema is listed through @valibot/to-json-schema (when installed): typed like the wrapped one
defineTools({
  x: {
    input: v.object({ q: v.string(), limit: v.optional(v.number(), 10) }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ q: string, limit: number }>()
      return text(args.q)
    }
  }
})
// @ts-expect-error a record of schemas is not a schema (Type.Object is missing)
defineTools({ x: { input: { q: LegacyType.String() }, handler: () => text('') } })
// @ts-expect-error the output shape is { n: number }
defineTools({ x: { output: z.object({ n: z.number() }), handler: () => ({ n: 'many' }) } })
// @ts-expect-error the output shape is { ok: boolean }
defineTools({ x: { output: okOutput, handler: () => ({ ok: 1 }) } })

definePrompts({
  zod: {
    arguments: z.object({ topic: z.string(), tone: z.string().optional() }),
    complete: { topic: (value) => [value] },
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ topic: string, tone?: string | undefined }>()
      return args.topic
    }
  },
  plain: {
    arguments: topicArguments,
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ topic: string }>()
      return args.topic
    }
  }
})

// Our structural Standard Schema interface is what @standard-schema/spec describes
declare const both: StandardSchemaV1<{ a: string }, { a: number }> & StandardJSONSchemaV1<{ a: string }, { a: number }>
expectTypeOf(both).toMatchTypeOf<StandardJsonSchema>()
expectTypeOf<Infer<typeof both>>().toEqualTypeOf<{ a: number }>()
expectTypeOf<InferReturn<typeof both>>().toEqualTypeOf<{ a: string }>()
