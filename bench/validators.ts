/**
 * Which validator the define helpers compile tool arguments with: TypeBox's
 * own compiler or Ajv (the one Fastify uses). Compile cost (once per tool at
 * define time) and per-call cost on valid and invalid arguments, including
 * collecting every error for the message. `npm run bench:validators`
 */
import { Type, type TSchema } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Ajv } from 'ajv'

const ROUNDS = 5
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
