/**
 * One tool and one prompt written with each accepted schema kind: TypeBox
 * 0.34, TypeBox 1.x, zod 4, valibot (through @valibot/to-json-schema),
 * arktype and plain JSON Schema. Each lists plain JSON Schema 2020-12 valid
 * per the spec's Tool, validates arguments before the handler (defaults
 * filled in, every failing path named), checks structured output, and the
 * official SDK client calls it (the client checks structuredContent against
 * the listed outputSchema itself). A value of no accepted kind fails
 * registration naming what is accepted.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { Type as LegacyType } from '@sinclair/typebox'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { type } from 'arktype'
import t from 'tap'
import { Type } from 'typebox'
import * as v from 'valibot'
import { z } from 'zod'
import { definePrompts } from '../../lib/definitions/prompts.js'
import type { ObjectSchema } from '../../lib/definitions/schema-types.js'
import { compileToolEntry, defineTools } from '../../lib/definitions/tools.js'
import { injectClient } from '../../lib/testing/index.js'
import { specValidator } from '../helpers/spec-schemas.js'
import { hasNoSymbols, isDeeplyFrozen, serve } from './helpers.js'

/** The same contract in every library: query (non-empty), limit (1..100, default 10), state ("open" | "closed"). */
const libraries = {
  'typebox 0.34': {
    input: LegacyType.Object({
      query: LegacyType.String({ minLength: 1 }),
      limit: LegacyType.Optional(LegacyType.Integer({ minimum: 1, maximum: 100, default: 10 })),
      state: LegacyType.Optional(LegacyType.Union([LegacyType.Literal('open'), LegacyType.Literal('closed')]))
    }),
    output: LegacyType.Object({ count: LegacyType.Integer() }),
    prompt: LegacyType.Object({ topic: LegacyType.String(), tone: LegacyType.Optional(LegacyType.String()) })
  },
  'typebox 1.x': {
    input: Type.Object({
      query: Type.String({ minLength: 1 }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
      state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')]))
    }),
    output: Type.Object({ count: Type.Integer() }),
    prompt: Type.Object({ topic: Type.String(), tone: Type.Optional(Type.String()) })
  },
  zod: {
    input: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(100).default(10), state: z.enum(['open', 'closed']).optional() }),
    output: z.object({ count: z.number().int() }),
    prompt: z.object({ topic: z.string(), tone: z.string().optional() })
  },
  valibot: {
    input: toStandardJsonSchema(v.object({
      query: v.pipe(v.string(), v.minLength(1)),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 10),
      state: v.optional(v.picklist(['open', 'closed']))
    })),
    output: toStandardJsonSchema(v.object({ count: v.pipe(v.number(), v.integer()) })),
    prompt: toStandardJsonSchema(v.object({ topic: v.string(), tone: v.optional(v.string()) }))
  },
  arktype: {
    input: type({ query: 'string > 0', limit: '1 <= number.integer <= 100 = 10', 'state?': "'open' | 'closed'" }),
    output: type({ count: 'number.integer' }),
    prompt: type({ topic: 'string', 'tone?': 'string' })
  },
  'plain JSON Schema': {
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
        state: { enum: ['open', 'closed'] }
      },
      required: ['query']
    },
    output: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
    prompt: { type: 'object', properties: { topic: { type: 'string' }, tone: { type: 'string' } }, required: ['topic'] }
  }
} as const

const meta = new Ajv2020({ strict: false })

for (const [library, written] of Object.entries(libraries)) {
  // one loop over six libraries: their union would only slow the compiler (each is typed in test/types/schema-libraries.test-d.ts)
  const schemas = written as unknown as Record<'input' | 'output' | 'prompt', ObjectSchema>
  function groups (seen: unknown[]) {
    return {
      tools: defineTools({
        search: {
          input: schemas.input,
          output: schemas.output,
          handler: (args) => {
            seen.push(args)
            return { count: (args as { limit: number }).limit }
          }
        },
        broken: {
          output: schemas.output,
          handler: () => ({ count: 'many' } as never)
        }
      }),
      prompts: definePrompts({
        brief: { arguments: schemas.prompt, handler: (args) => `Write about ${(args as { topic: string }).topic}` }
      })
    }
  }
  function module (seen: unknown[]) {
    const { tools, prompts } = groups(seen)
    return { ...tools, ...prompts }
  }

  t.test(`${library}: listed as plain JSON Schema 2020-12, valid per the spec's Tool and Prompt`, async (t) => {
    const defined = groups([])
    const [search] = defined.tools.listTools().tools
    t.ok(isDeeplyFrozen(defined.tools.listTools()) && hasNoSymbols(defined.tools.listTools()), 'deeply frozen plain JSON')
    for (const version of ['2025-11-25', '2026-07-28'] as const) {
      const tool = specValidator(version, 'Tool')
      t.ok(tool(search), `${version} Tool: ${JSON.stringify(tool.errors)}`)
    }
    t.ok(meta.validateSchema(search?.inputSchema as object), `inputSchema is valid 2020-12: ${meta.errorsText(meta.errors)}`)
    t.ok(meta.validateSchema(search?.outputSchema as object), `outputSchema is valid 2020-12: ${meta.errorsText(meta.errors)}`)
    t.match(search?.inputSchema, { type: 'object', properties: { query: { type: 'string', minLength: 1 }, limit: { minimum: 1, maximum: 100 } } })
    t.ok(((search?.inputSchema as { required?: string[] }).required ?? []).includes('query'), 'query is required')
    t.notOk(((search?.inputSchema as { required?: string[] }).required ?? []).includes('state'), 'state is optional')
    t.strictSame(defined.prompts.listPrompts().prompts[0]?.arguments, [{ name: 'topic', required: true }, { name: 'tone', required: false }])
  })

  for (const era of ['legacy', 'modern'] as const) {
    t.test(`${library} (${era}): arguments validated with defaults filled in; output checked`, async (t) => {
      const seen: unknown[] = []
      const { app, logs } = await serve(t, module(seen))
      const client = injectClient(app, { era })

      const ok = await client.callTool('search', { query: 'crash', state: 'open' })
      t.strictSame(ok.structuredContent, { count: 10 }, 'the default limit reached the handler')
      t.strictSame(seen, [{ query: 'crash', state: 'open', limit: 10 }])

      const bad = await client.callTool('search', { query: '', limit: 1000, state: 'stale' })
      t.equal(bad.isError, true)
      const text = bad.content[0]?.type === 'text' ? bad.content[0].text : ''
      t.match(text, /^Invalid arguments for tool "search": /)
      for (const path of ['query', 'limit', 'state']) t.match(text, new RegExp(`(^|; |: )${path}: `), `names ${path}: ${text}`)
      t.equal(seen.length, 1, 'the handler did not run')

      const missing = await client.callTool('search', {})
      t.match(missing.content[0], { text: /query: / }, 'a missing required argument is named')

      const broken = await client.callTool('broken').catch((err: unknown) => err)
      t.match(broken, { code: -32603, message: 'Internal error' }, 'a result breaking the output schema is the server\'s fault')
      t.match(logs.find((line) => line.msg === 'MCP tool "broken" returned a result that does not match its output schema'), { tool: 'broken', problems: [/^count: /] })

      t.strictSame((await client.getPrompt('brief', { topic: 'tides' })).messages, [{ role: 'user', content: { type: 'text', text: 'Write about tides' } }])
      const badPrompt = await client.getPrompt('brief', {}).catch((err: unknown) => err)
      t.match(badPrompt, { code: -32602, message: /Invalid arguments for prompt "brief": topic: / })
    })
  }

  t.test(`${library}: added and updated at runtime with the registration checks`, async (t) => {
    const seen: unknown[] = []
    const { app } = await serve(t, module([]))
    const client = injectClient(app)
    app.mcp.tools.add('late', {
      input: schemas.input,
      output: schemas.output,
      handler: (args: unknown) => {
        seen.push(args)
        return { count: (args as { limit: number }).limit }
      }
    })
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'late')
    t.match(listed?.inputSchema, { type: 'object', properties: { query: { type: 'string', minLength: 1 } } })
    t.strictSame((await client.callTool('late', { query: 'x' })).structuredContent, { count: 10 }, 'defaults filled in')
    const bad = await client.callTool('late', { query: '', limit: 0 })
    t.equal(bad.isError, true)
    t.match(bad.content[0], { text: /^Invalid arguments for tool "late": query: .*limit: / })
    t.equal(seen.length, 1, 'the handler ran for the valid call only')
    app.mcp.tools.update('late', { input: schemas.prompt, handler: (args: unknown) => `about ${(args as { topic: string }).topic}` })
    t.match((await client.callTool('late', { topic: 'tides' })).content[0], { text: 'about tides' })
    t.match((await client.callTool('late', {})).content[0], { text: /^Invalid arguments for tool "late": topic: / })
    t.throws(() => app.mcp.tools.add('odd', { input: { type: 'array' } as never, handler: () => '' }), { code: 'FST_MCP_INVALID_DEFINITION' })
    t.notOk(app.mcp.tools.has('odd'), 'a refused definition is not added')
  })

  t.test(`${library}: the official SDK client lists and calls the tool (and checks its structured output)`, async (t) => {
    const { app } = await serve(t, module([]))
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address() as { port: number }
    const client = new Client({ name: 'schema-libraries', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${address.port}/mcp`)))
    t.teardown(() => client.close())
    const { tools } = await client.listTools()
    t.strictSame(tools.map((tool) => tool.name), ['search', 'broken'])
    const result = await client.callTool({ name: 'search', arguments: { query: 'x', limit: 3 } })
    t.strictSame(result.structuredContent, { count: 3 })
  })
}

t.test('a value of no accepted kind fails registration naming what is accepted', async (t) => {
  const handler = () => ({ content: [] })
  const accepted = /expected a TypeBox object \(@sinclair\/typebox 0\.34 or typebox 1\.x\), a Standard Schema that gives its JSON Schema \(zod 4, arktype, valibot with @valibot\/to-json-schema installed\) or a plain JSON Schema object/
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['a class instance', () => defineTools({ x: { input: new Date() as never, handler } }), accepted],
    ['a string', () => defineTools({ x: { input: 'object' as never, handler } }), accepted],
    ['another library without Standard JSON Schema', () => defineTools({ x: { input: { '~standard': { version: 1, vendor: 'other', validate: () => ({ value: {} }) } } as never, handler } }),
      /tool "x" \(input\): a other Standard Schema without Standard JSON Schema .*valibot: install @valibot\/to-json-schema/],
    ['a Standard Schema without validate', () => defineTools({ x: { input: { '~standard': { version: 1, vendor: 'x' } } as never, handler } }), /without a validate function/],
    ['zod: not an object', () => defineTools({ x: { input: z.string() as never, handler } }), /tool "x" \(input\): must be an object schema/],
    ['zod: no JSON Schema for a transform', () => defineTools({ x: { input: z.object({ d: z.string().transform((s) => s.length) }), output: z.object({ n: z.date() }) as never, handler: handler as never } }), /tool "x" \(output\): its library cannot give a JSON Schema/],
    ['plain: not an object', () => defineTools({ x: { input: { type: 'array' } as never, handler } }), /must be an object schema/],
    ['plain: another dialect', () => defineTools({ x: { input: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' } as never, handler } }), /"\$schema" is .*draft-07.*2020-12/],
    ['plain: not a valid schema', () => defineTools({ x: { input: { type: 'object', properties: { a: { type: 'strin' } } } as never, handler } }), /tool "x" \(input\): not a valid JSON Schema 2020-12: .*properties\/a\/type/],
    ['plain: unknown format', () => defineTools({ x: { input: { type: 'object', properties: { a: { type: 'string', format: 'fancy' } } }, handler } }), /unknown string format "fancy"/],
    ['prompt: a number argument', () => definePrompts({ p: { arguments: z.object({ n: z.number() }) as never, handler: () => '' } }), /argument "n" must be a string schema/]
  ]
  for (const [what, make, message] of cases) t.throws(make, { code: 'FST_MCP_INVALID_DEFINITION', message }, what)
})

t.test('plain JSON Schema: string formats are checked as TypeBox checks them', async (t) => {
  const tools = defineTools({ mail: { input: { type: 'object', properties: { to: { type: 'string', format: 'email' } }, required: ['to'] }, handler: () => ({ content: [] }) } })
  const ctx = {} as never
  t.strictSame(await tools.callTool({ name: 'mail', arguments: { to: 'a@b.io' } }, ctx), { content: [] })
  t.match(await tools.callTool({ name: 'mail', arguments: { to: 'nope' } }, ctx), { isError: true, content: [{ text: /to: must match format "email"/ }] })
})

t.test('an asynchronous Standard Schema is awaited before the handler runs', async (t) => {
  const slow = z.object({ name: z.string().refine(async (s) => s !== 'taken', 'already taken') })
  const seen: unknown[] = []
  const tools = defineTools({ claim: { input: slow, handler: (args) => { seen.push(args); return { content: [] } } } })
  const ctx = {} as never
  t.strictSame(await tools.callTool({ name: 'claim', arguments: { name: 'free' } }, ctx), { content: [] })
  t.match(await tools.callTool({ name: 'claim', arguments: { name: 'taken' } }, ctx), { isError: true, content: [{ text: 'Invalid arguments for tool "claim": name: already taken' }] })
  t.strictSame(seen, [{ name: 'free' }])
})

t.test('problem lines read the same whichever library: a union of constants names its values; no path said twice', async (t) => {
  const ctx = {} as never
  const handler = () => ({ content: [] })
  const tools = defineTools({
    modern: { input: Type.Object({ state: Type.Union([Type.Literal('open'), Type.Literal('closed')]) }), handler },
    ark: { input: type({ query: 'string > 0' }), handler }
  })
  t.match(await tools.callTool({ name: 'modern', arguments: { state: 'stale' } }, ctx), { content: [{ text: 'Invalid arguments for tool "modern": state: expected one of "open", "closed"' }] })
  t.match(await tools.callTool({ name: 'ark', arguments: { query: '' } }, ctx), { content: [{ text: 'Invalid arguments for tool "ark": query: must be non-empty' }] })
})

t.test('equal schemas share one compiled validator (TypeBox 0.34, TypeBox 1.x, plain JSON Schema); Standard Schemas keep their own', async (t) => {
  const handler = () => ''
  const validators = (make: () => unknown) => {
    const a = compileToolEntry('a', { input: make(), handler }, 'test').compiled.input
    const b = compileToolEntry('b', { input: make(), handler }, 'test').compiled.input
    return [a, b]
  }
  for (const [kind, make] of [
    ['typebox 0.34', () => LegacyType.Object({ q: LegacyType.String({ maxLength: 7 }) })],
    ['typebox 1.x', () => Type.Object({ q: Type.String({ maxLength: 7 }) })],
    ['plain JSON Schema', () => ({ type: 'object', properties: { q: { type: 'string', maxLength: 7 } }, required: ['q'] })]
  ] as const) {
    const [a, b] = validators(make)
    t.equal(a, b, `${kind}: one validator for two tools`)
  }
  // the same listed JSON from two kinds is compiled by each kind's own validator
  const legacy = compileToolEntry('c', { input: LegacyType.Object({ n: LegacyType.Number({ maximum: 3 }) }), handler }, 'test').compiled.input
  const plain = compileToolEntry('d', { input: { type: 'object', properties: { n: { type: 'number', maximum: 3 } }, required: ['n'] }, handler }, 'test').compiled.input
  t.not(legacy, plain)
  // input (defaults filled in) and output (checked as returned) never share
  const asOutput = compileToolEntry('e', { output: LegacyType.Object({ q: LegacyType.String({ maxLength: 7 }) }), handler }, 'test').compiled.output
  t.not(asOutput, validators(() => LegacyType.Object({ q: LegacyType.String({ maxLength: 7 }) }))[0])
  // zod: the same JSON Schema, different refinements: each keeps its own check
  const even = compileToolEntry('f', { input: z.object({ n: z.number().refine((n) => n % 2 === 0, 'must be even') }), handler }, 'test').compiled.input
  const odd = compileToolEntry('g', { input: z.object({ n: z.number().refine((n) => n % 2 === 1, 'must be odd') }), handler }, 'test').compiled.input
  t.not(even, odd)
  t.match(even.validate({ n: 3 }), { problems: ['n: must be even'] })
  t.strictSame(odd.validate({ n: 3 }), { n: 3 })
})

t.test('plain JSON Schema: a required property with a default is listed optional and filled in', async (t) => {
  const seen: unknown[] = []
  const tools = defineTools({
    pick: {
      input: { type: 'object', properties: { n: { type: 'integer', default: 3 }, q: { type: 'string' } }, required: ['n', 'q'] } as const,
      handler: (args) => { seen.push(args); return 'ok' }
    }
  })
  t.strictSame((tools.listTools().tools[0]?.inputSchema as { required?: unknown }).required, ['q'])
  const ctx = { logger: { error () {} } } as never
  t.match(await tools.callTool({ name: 'pick', arguments: { q: 'x' } }, ctx), { content: [{ text: 'ok' }] })
  t.strictSame(seen, [{ q: 'x', n: 3 }])
})
