/**
 * Validators compile on a tool's first call, not at registration (issue 20:
 * a catalogue of thousands of tools with schemas of their own registers
 * without compiling what is never called; figures in bench/catalog-scale.ts).
 * What compiling would refuse is still refused when the tool is defined.
 */
import { Kind, Type as LegacyType } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { Ajv2020 } from 'ajv/dist/2020.js'
import t, { type Test } from 'tap'
import { Type } from 'typebox'
import { defineTools, type ToolDefinition } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from './helpers.js'

/**
 * Counts compilations of the schemas whose `query.maxLength` is in `marks`
 * (Ajv: the first-error check, and the one listing every problem of a failing value).
 */
function countCompiles (t: Test, marks: Set<number>): { typebox: number, ajv: number, ajvDetails: number } {
  const counts = { typebox: 0, ajv: 0, ajvDetails: 0 }
  const ours = (schema: unknown) => marks.has((schema as { properties?: { query?: { maxLength?: number } } })?.properties?.query?.maxLength as number)
  const compile = TypeCompiler.Compile
  TypeCompiler.Compile = ((schema: never, ...rest: never[]) => {
    if (ours(schema)) counts.typebox++
    return (compile as (...args: unknown[]) => unknown)(schema, ...rest)
  }) as typeof compile
  const ajvCompile = Ajv2020.prototype.compile
  Ajv2020.prototype.compile = function (this: Ajv2020, schema: never, ...rest: never[]) {
    if (ours(schema)) counts[this.opts.allErrors === true ? 'ajvDetails' : 'ajv']++
    return (ajvCompile as (...args: unknown[]) => unknown).call(this, schema, ...rest)
  } as typeof ajvCompile
  t.teardown(() => {
    TypeCompiler.Compile = compile
    Ajv2020.prototype.compile = ajvCompile
  })
  return counts
}

t.test('schemas of their own compile on the first call of their tool, once', async (t) => {
  // marks unique to this test: no other test shares these validators
  const base = 1000 + Math.floor(Math.random() * 1000) * 10
  const marks = new Set(Array.from({ length: 9 }, (_, i) => base + i))
  const counts = countCompiles(t, marks)
  const tools: Record<string, ToolDefinition<any, any>> = {}
  for (let i = 0; i < 3; i++) {
    tools[`legacy_${i}`] = { input: LegacyType.Object({ query: LegacyType.String({ maxLength: base + i }) }), handler: ({ query }: { query: string }) => query }
    tools[`modern_${i}`] = { input: Type.Object({ query: Type.String({ maxLength: base + 3 + i }) }), handler: ({ query }: { query: string }) => query }
    tools[`plain_${i}`] = { input: { type: 'object', properties: { query: { type: 'string', maxLength: base + 6 + i } }, required: ['query'] }, handler: ({ query }: { query: string }) => query }
  }
  const { app } = await serve(t, defineTools(tools))
  t.strictSame(counts, { typebox: 0, ajv: 0, ajvDetails: 0 }, 'nothing compiled at registration')
  const client = injectClient(app)
  t.equal((await client.listTools()).tools.length, 9, 'listing compiles nothing either')
  t.strictSame(counts, { typebox: 0, ajv: 0, ajvDetails: 0 })

  t.match((await client.callTool('legacy_1', { query: 'a' })).content[0], { text: 'a' })
  t.match((await client.callTool('legacy_1', { query: 7 })), { isError: true, content: [{ text: /query: expected string/ }] })
  t.match((await client.callTool('plain_2', { query: 'b' })).content[0], { text: 'b' })
  t.match((await client.callTool('plain_2', {})), { isError: true, content: [{ text: /query: required property missing/ }] })
  t.match((await client.callTool('modern_0', { query: 'c'.repeat(base + 4) })), { isError: true }, 'its own maxLength holds')
  t.match((await client.callTool('plain_2', {})), { isError: true }, 'failing again')
  t.strictSame(counts, { typebox: 1, ajv: 2, ajvDetails: 2 }, 'each called tool compiled once (Ajv: TypeBox 1.x and plain), its details on its first failure')
})

t.test('what compiling would refuse is refused when the tool is defined', async (t) => {
  const handler = () => ''
  const cases: Array<[string, unknown, RegExp]> = [
    ['typebox 0.34: a pattern that is no regular expression', LegacyType.Object({ q: LegacyType.String({ pattern: '(' }) }), /the schema does not compile/],
    ['typebox 0.34: a kind nobody registered', LegacyType.Object({ q: LegacyType.Unsafe<string>({ [Kind]: 'Colour' }) }), /unknown kind "Colour".*TypeRegistry/],
    ['typebox 0.34: a reference to nothing', LegacyType.Object({ q: LegacyType.Ref('Elsewhere') }), /the schema does not compile \(Unable to dereference schema with \$id 'Elsewhere'\)/],
    ['typebox 0.34: an unknown format', LegacyType.Object({ q: LegacyType.String({ format: 'colour' }) }), /unknown string format "colour"/],
    ['typebox 1.x: a pattern that is no regular expression', Type.Object({ q: Type.String({ pattern: '(' }) }), /the schema does not compile \(Invalid regular expression/],
    ['plain: a patternProperties key that is no regular expression', { type: 'object', patternProperties: { '[': { type: 'string' } } }, /the schema does not compile \(Invalid regular expression/],
    ['plain: a reference to nothing', { type: 'object', properties: { q: { $ref: '#/$defs/missing' } } }, /the schema does not compile \(can't resolve reference/],
    ['plain: not valid per the meta-schema', { type: 'object', properties: { q: { minLength: -1 } } }, /not a valid JSON Schema 2020-12/]
  ]
  for (const [name, input, message] of cases) {
    t.throws(() => defineTools({ x: { input: input as never, handler } }), { code: 'FST_MCP_INVALID_DEFINITION', message }, name)
  }
})
