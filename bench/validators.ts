/**
 * What validating tool arguments costs. Part 1: TypeBox's own compiler
 * against Ajv (the one Fastify uses), raw. Part 2: the same arguments schema
 * written in each library the define helpers accept, through the helpers'
 * own adapter (lib/definitions/schema-adapter.ts), so the figures are what a
 * tools/call pays: TypeBox 0.34 (TypeBox's compiler), TypeBox 1.x and plain
 * JSON Schema (Ajv 2020), zod 4, valibot and arktype (their `~standard.validate`).
 * Compile cost (once per tool at define time) and per-call cost on valid and
 * invalid arguments, including collecting every error for the message.
 * `npm run bench:validators` (`ROUNDS=2` for a quick run)
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { Ajv } from 'ajv'
import { type } from 'arktype'
import { Type as Type1 } from 'typebox'
import * as v from 'valibot'
import { z } from 'zod'
import { adaptSchema } from '../lib/definitions/schema-adapter.js'
import { Invalid } from '../lib/definitions/validation.js'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
// `UNIQUE=1` adds `uniqueItems` to the array: TypeBox then hashes every item (µs per call).
const CALLS = 200_000
const COMPILES = 300

function schema (): TSchema {
  return Type.Object({
    query: Type.String({ minLength: 1, description: 'Words to look for' }),
    state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')])),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    labels: Type.Optional(Type.Array(Type.String(), process.env.UNIQUE ? { uniqueItems: true } : {}))
  })
}

const valid = { query: 'crash on start', state: 'open', limit: 20, labels: ['bug', 'p1'] }
const invalid = { query: '', state: 'stale', limit: 1000, labels: ['bug', 3] }

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

function time (fn: () => void, count: number): number {
  const start = process.hrtime.bigint()
  for (let i = 0; i < count; i++) fn()
  return Number(process.hrtime.bigint() - start) / count
}

const ajvOptions = { allErrors: true, strict: false, coerceTypes: false, useDefaults: false } as const

const sharedAjv = new Ajv(ajvOptions)

const candidates = {
  typebox: {
    compile: () => TypeCompiler.Compile(schema()),
    check: (() => { const c = TypeCompiler.Compile(schema()); return (v: unknown) => c.Check(v) })(),
    errors: (() => { const c = TypeCompiler.Compile(schema()); return (v: unknown) => c.Check(v) ? [] : [...c.Errors(v)].map((e) => `${e.path} ${e.message}`) })()
  },
  ajv: {
    // one shared instance, as Fastify keeps one per encapsulation context; a new schema object compiles afresh
    compile: () => sharedAjv.compile(JSON.parse(JSON.stringify(schema()))),
    check: (() => { const v = new Ajv(ajvOptions).compile(JSON.parse(JSON.stringify(schema()))); return (x: unknown) => v(x) })(),
    errors: (() => { const v = new Ajv(ajvOptions).compile(JSON.parse(JSON.stringify(schema()))); return (x: unknown) => v(x) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`) })()
  }
}

const results: Record<string, { compileUs: number[], validNs: number[], invalidNs: number[] }> = {}
for (const name of Object.keys(candidates)) results[name] = { compileUs: [], validNs: [], invalidNs: [] }
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, c] of Object.entries(candidates)) {
    const r = results[name]!
    r.compileUs.push(time(c.compile, COMPILES) / 1000)
    r.validNs.push(time(() => { if (!c.check(valid)) throw new Error('valid rejected') }, CALLS))
    r.invalidNs.push(time(() => { if (c.errors(invalid).length === 0) throw new Error('invalid accepted') }, CALLS / 10))
  }
}
console.log('errors for the invalid arguments:')
for (const [name, c] of Object.entries(candidates)) console.log(`  ${name}:`, c.errors(invalid))
console.log('\nvalidator  compile (µs)  valid call (ns)  invalid call + all errors (ns)')
for (const [name, r] of Object.entries(results)) {
  console.log(`${name.padEnd(10)} ${median(r.compileUs).toFixed(0).padStart(12)} ${median(r.validNs).toFixed(0).padStart(16)} ${median(r.invalidNs).toFixed(0).padStart(31)}`)
}

/** The same arguments schema in every accepted library: query (non-empty), state (open | closed | all), limit (1..100), labels. */
const written: Record<string, () => unknown> = {
  'typebox 0.34': schema,
  'typebox 1.x': () => Type1.Object({
    query: Type1.String({ minLength: 1, description: 'Words to look for' }),
    state: Type1.Optional(Type1.Union([Type1.Literal('open'), Type1.Literal('closed'), Type1.Literal('all')])),
    limit: Type1.Optional(Type1.Integer({ minimum: 1, maximum: 100 })),
    labels: Type1.Optional(Type1.Array(Type1.String()))
  }),
  'plain JSON': () => ({
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'Words to look for' },
      state: { enum: ['open', 'closed', 'all'] },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      labels: { type: 'array', items: { type: 'string' } }
    },
    required: ['query']
  }),
  zod: () => z.object({
    query: z.string().min(1).describe('Words to look for'),
    state: z.enum(['open', 'closed', 'all']).optional(),
    limit: z.number().int().min(1).max(100).optional(),
    labels: z.array(z.string()).optional()
  }),
  valibot: () => toStandardJsonSchema(v.object({
    query: v.pipe(v.string(), v.minLength(1), v.description('Words to look for')),
    state: v.optional(v.picklist(['open', 'closed', 'all'])),
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
    labels: v.optional(v.array(v.string()))
  })),
  arktype: () => type({ query: 'string > 0', 'state?': "'open' | 'closed' | 'all'", 'limit?': '1 <= number.integer <= 100', 'labels?': 'string[]' })
}

const use = { where: 'bench', root: 'arguments', direction: 'input' } as const
const adapted: Record<string, { compileUs: number[], validNs: number[], invalidNs: number[] }> = {}
for (const name of Object.keys(written)) adapted[name] = { compileUs: [], validNs: [], invalidNs: [] }
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, make] of Object.entries(written)) {
    const r = adapted[name]!
    // define + first call (validators compile on first use); a root of its own each time, so nothing is shared
    let fresh = 0
    r.compileUs.push(time(() => adaptSchema(make(), { ...use, root: `arguments${fresh++}` }).validator.validate(structuredClone(valid)), COMPILES / 10) / 1000)
    const { validator } = adaptSchema(make(), use)
    r.validNs.push(time(() => { if (validator.validate(valid) instanceof Invalid) throw new Error('valid rejected') }, CALLS))
    r.invalidNs.push(time(() => { if (!(validator.validate(invalid) instanceof Invalid)) throw new Error('invalid accepted') }, CALLS / 10))
  }
}
console.log('\nthrough the define helpers\' adapter (listing + checks + compile on the first call; validate per call):')
console.log('library        define (µs)  valid call (ns)  invalid call + all problems (ns)')
for (const [name, r] of Object.entries(adapted)) {
  console.log(`${name.padEnd(14)} ${median(r.compileUs).toFixed(0).padStart(11)} ${median(r.validNs).toFixed(0).padStart(16)} ${median(r.invalidNs).toFixed(0).padStart(33)}`)
}
console.log('\nproblems for the invalid arguments:')
for (const [name, make] of Object.entries(written)) console.log(`  ${name}:`, (adaptSchema(make(), use).validator.validate(structuredClone(invalid)) as Invalid).problems.join('; '))
