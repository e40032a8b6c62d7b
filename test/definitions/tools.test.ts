/**
 * defineTools: listed schemas are plain JSON valid per the spec's Tool,
 * arguments are validated before the handler runs (isError naming each
 * failing path, in both eras), unknown tools are -32602, structured output
 * is checked and mismatches are the server's fault (-32603, details logged).
 */
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { compileToolEntry, defineTools, toolError } from '../../lib/definitions/tools.js'
import { checkListed, INTERPRETED_LISTED_CHECKS } from '../../lib/definitions/plain.js'
import { composeServer } from '../../lib/definitions/compose.js'
import { REQUIRED_SCOPES } from '../../lib/server-module/scopes.js'
import { injectClient, McpResponseError } from '../../lib/testing/index.js'
import { specValidator } from '../helpers/spec-schemas.js'
import { hasNoSymbols, isDeeplyFrozen, serve } from './helpers.js'

function calculator (calls: string[] = []) {
  return defineTools({
    add: {
      title: 'Add',
      description: 'Adds two numbers.',
      input: Type.Object({ a: Type.Number({ description: 'first' }), b: Type.Number() }),
      annotations: { readOnlyHint: true },
      handler: ({ a, b }) => {
        calls.push('add')
        return { content: [{ type: 'text', text: String(a + b) }] }
      }
    },
    stats: {
      input: Type.Object({
        values: Type.Array(Type.Number(), { minItems: 1 }),
        round: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, default: 2 }))
      }),
      output: Type.Object({ mean: Type.Number(), count: Type.Integer() }),
      handler: async ({ values, round }) => {
        calls.push('stats')
        const mean = values.reduce((s, v) => s + v, 0) / values.length
        return { mean: Number(mean.toFixed(round)), count: values.length }
      }
    },
    broken: {
      output: Type.Object({ ok: Type.Boolean() }),
      scopes: ['admin'],
      // deliberately wrong at run time (the type system is bypassed to simulate a bug)
      handler: () => ({ ok: 'yes' } as unknown as { ok: boolean })
    },
    refuse: {
      input: Type.Object({ why: Type.String() }),
      output: Type.Object({ ok: Type.Boolean() }),
      handler: ({ why }) => toolError(`refused: ${why}`)
    },
    mood: {
      input: Type.Object({ mood: Type.Union([Type.Literal('happy'), Type.Literal('sad')]), email: Type.Optional(Type.String({ format: 'email' })) }),
      handler: ({ mood }) => ({ content: [{ type: 'text', text: mood }] })
    }
  })
}

t.test('the tool list is plain JSON, valid per the spec, deeply frozen and the same object every time', async (t) => {
  const tools = calculator()
  const list = tools.listTools()
  t.equal(tools.listTools(), list, 'one object')
  t.ok(isDeeplyFrozen(list), 'deeply frozen (served as prepared bytes)')
  t.ok(hasNoSymbols(list), 'no TypeBox symbols')
  t.strictSame(list.tools[0], {
    name: 'add',
    title: 'Add',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } }, required: ['a', 'b'] },
    annotations: { readOnlyHint: true }
  })
  t.strictSame(list.tools[1]?.outputSchema, { type: 'object', properties: { mean: { type: 'number' }, count: { type: 'integer' } }, required: ['mean', 'count'] })
  t.strictSame(list.tools[2]?.inputSchema, { type: 'object', properties: {} }, 'no input: an empty object schema')
  for (const version of ['2025-11-25', '2026-07-28'] as const) {
    const validate = specValidator(version, 'Tool')
    for (const tool of list.tools) t.ok(validate(tool), `${version} Tool ${tool.name}: ${JSON.stringify(validate.errors)}`)
  }
})

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: valid arguments reach the typed handler; invalid ones are a tool error naming each path`, async (t) => {
    const calls: string[] = []
    const { app } = await serve(t, calculator(calls))
    const client = injectClient(app, { era })

    t.strictSame(await client.callTool('add', { a: 2, b: 3 }), era === 'modern'
      ? { content: [{ type: 'text', text: '5' }], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'define-test', version: '1.0.0' } } }
      : { content: [{ type: 'text', text: '5' }] })

    const bad = await client.callTool('add', { a: 'x' })
    t.equal(bad.isError, true)
    t.equal(bad.content[0]?.type === 'text' && bad.content[0].text,
      'Invalid arguments for tool "add": b: required property missing (expected number); a: expected number')
    t.strictSame(calls, ['add'], 'the handler did not run for invalid arguments')

    const nested = await client.callTool('stats', { values: [1, 'two'], round: 11 })
    t.match(nested.content[0], { type: 'text', text: /values\[1\]: expected number.*round: expected integer to be less or equal to 10/ })

    const notObject = await client.request('tools/call', { name: 'add', arguments: [1, 2] }) as { isError?: boolean, content: Array<{ text: string }> }
    t.equal(notObject.isError, true)
    t.match(notObject.content[0]?.text, /arguments: expected object/)

    const union = await client.callTool('mood', { mood: 'angry', email: 'nope' })
    t.match(union.content[0], { text: /mood: expected one of "happy", "sad"; email: expected string to match 'email' format/ })
    t.strictSame(calls, ['add'])
  })

  t.test(`${era}: structured output gets structuredContent and its JSON as text; defaults are applied`, async (t) => {
    const { app } = await serve(t, calculator())
    const client = injectClient(app, { era })
    const result = await client.callTool('stats', { values: [1, 2, 2] })
    t.strictSame(result.structuredContent, { mean: 1.67, count: 3 }, 'round defaulted to 2')
    t.strictSame(result.content, [{ type: 'text', text: '{"mean":1.67,"count":3}' }])
    const refused = await client.callTool('refuse', { why: 'no' })
    t.strictSame([refused.isError, refused.content], [true, [{ type: 'text', text: 'refused: no' }]], 'toolError passes through an output tool')
  })

  t.test(`${era}: an unknown tool is -32602; a result breaking its output schema is -32603 without details`, async (t) => {
    const { app, logs } = await serve(t, calculator())
    const client = injectClient(app, { era })
    const unknown = await client.callTool('nope').catch((err: unknown) => err)
    t.ok(unknown instanceof McpResponseError)
    t.match(unknown, { code: -32602, message: 'Unknown tool: nope', status: era === 'modern' ? 400 : 200 })
    const broken = await client.callTool('broken').catch((err: unknown) => err)
    t.match(broken, { code: -32603, message: 'Internal error', data: undefined })
    const logged = logs.find((line) => line.msg === 'MCP tool "broken" returned a result that does not match its output schema')
    t.match(logged, { level: 50, tool: 'broken', problems: ['ok: expected boolean'] }, 'details in the server log')
  })
}

t.test('defaults: root properties filled in with fresh copies; nested ones through TypeBox', async (t) => {
  const seen: unknown[] = []
  const tools = defineTools({
    flat: {
      input: Type.Object({ tags: Type.Optional(Type.Array(Type.String(), { default: ['x'] })), n: Type.Optional(Type.Integer({ default: 1 })) }),
      handler: (args) => { seen.push(args); args.tags?.push('mutated'); return { content: [] } }
    },
    nested: {
      input: Type.Object({ opts: Type.Optional(Type.Object({ depth: Type.Integer({ default: 3 }) }, { default: {} })) }),
      handler: (args) => { seen.push(args); return { content: [] } }
    }
  })
  const ctx = {} as never
  tools.callTool({ name: 'flat', arguments: {} }, ctx)
  tools.callTool({ name: 'flat', arguments: { n: 5 } }, ctx)
  // awaited: in the tick of the definition, TypeBox's Value.Default may not be loaded yet (lib/definitions/nested-defaults.ts)
  await tools.callTool({ name: 'nested', arguments: {} }, ctx)
  t.strictSame(seen, [{ tags: ['x', 'mutated'], n: 1 }, { tags: ['x', 'mutated'], n: 5 }, { opts: { depth: 3 } }],
    'each call gets its own copy of an object default')
})

t.test('scopes: the composed catalogue answers the scopes each call needs, not a mark on the handler', async (t) => {
  const tools = calculator()
  const requirement = composeServer({ ...tools }, undefined).scopes.callTool
  t.type(requirement, 'function')
  t.strictSame(requirement?.({ name: 'broken' }), ['admin'])
  t.equal(requirement?.({ name: 'add' }), undefined)
  t.equal(requirement?.({ name: 42 }), undefined)
  t.equal((tools.callTool as unknown as Record<symbol, unknown>)[REQUIRED_SCOPES], undefined, 'the group\'s handler carries no mark')
  // A raw handler's REQUIRED_SCOPES (read once, at composition) answers the names no definition has.
  const rawCall = Object.assign(() => ({ content: [] }), { [REQUIRED_SCOPES]: (params: { name?: unknown }) => params.name === 'raw' ? ['raw:use'] : undefined })
  const mixed = composeServer({ ...tools, listTools: () => ({ tools: [] }), callTool: rawCall }, undefined).scopes.callTool
  t.strictSame(mixed?.({ name: 'raw' }), ['raw:use'])
  t.strictSame(mixed?.({ name: 'broken' }), ['admin'], 'a defined tool keeps its own')
  t.equal(composeServer({ callTool: rawCall, listTools: () => ({ tools: [] }) }, undefined).scopes.callTool, rawCall[REQUIRED_SCOPES], 'a module without groups: the raw declaration as it is')
})

t.test('mistakes in definitions fail at once with FST_MCP_INVALID_DEFINITION', async (t) => {
  const handler = () => ({ content: [] })
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['bad name', () => defineTools({ 'has space': { handler } }), /tool "has space": a tool name is 1 to 128 characters/],
    ['no handler', () => defineTools({ x: {} as any }), /tool "x": "handler": is required: expected a function/],
    ['handler not a function', () => defineTools({ x: { handler: 'run' } as any }), /tool "x": "handler": expected a function/],
    ['definition not an object', () => defineTools({ x: 'run' as any }), /tool "x": expected an object \{ title\?, description\?, input\?, output\?, annotations\?, icons\?, _meta\?, scopes\?, handler \}/],
    ['title not a string', () => defineTools({ x: { title: 5, handler } as any }), /tool "x": "title": expected a string/],
    ['unknown field (a typo)', () => defineTools({ x: { descripton: 'adds', handler } as any }), /tool "x": "descripton": unknown field \(known: title, description, .*\); did you mean "description"\?/],
    ['input not an object schema', () => defineTools({ x: { input: Type.String() as any, handler } }), /tool "x" \(input\): must be an object schema/],
    ['a class instance as input', () => defineTools({ x: { input: new Map() as any, handler } }), /tool "x" \(input\): expected a TypeBox object .*Standard Schema .*plain JSON Schema object/],
    ['unknown format', () => defineTools({ x: { input: Type.Object({ s: Type.String({ format: 'fancy' }) }), handler } }), /unknown string format "fancy"/],
    ['bad annotations', () => defineTools({ x: { annotations: { readOnlyHint: 'yes' } as any, handler } }), /not a valid Tool: \/annotations\/readOnlyHint/],
    // each field the spec's check is kept for (the others match `Tool` by construction)
    ['bad icons', () => defineTools({ x: { icons: [{ sizes: ['48x48'] }] as any, handler } }), /not a valid Tool: \/icons\/0\/src/],
    ['_meta not an object', () => defineTools({ x: { _meta: ['a'] as any, handler } }), /not a valid Tool: \/_meta/],
    ['bad scopes', () => defineTools({ x: { scopes: ['a b'], handler } }), /tool "x": "scopes\[0\]": expected a scope name \(a non-empty string without spaces\)/],
    ['scopes not an array', () => defineTools({ x: { scopes: 'a', handler } as any }), /tool "x": "scopes": expected an array of scope names/],
    ['not an object', () => defineTools(null as any), /expected an object of tool definitions/]
  ]
  for (const [what, make, message] of cases) {
    t.throws(make, { code: 'FST_MCP_INVALID_DEFINITION', message }, what)
  }
})

t.test('a listed item is refused alike before and after its spec schema is compiled (the first checks walk it uncompiled)', async (t) => {
  // a schema of its own: the count of uncompiled checks starts at zero whatever ran before
  const schema = Type.Object({ name: Type.String(), annotations: Type.Optional(Type.Object({ readOnlyHint: Type.Optional(Type.Boolean()) })) })
  const messages = new Set<string>()
  for (let i = 0; i < INTERPRETED_LISTED_CHECKS + 4; i++) {
    checkListed(schema, { name: `t${i}`, annotations: { readOnlyHint: true } }, `tool "t${i}"`, 'Tool')
    const refused = t.throws(() => checkListed(schema, { name: 'x', annotations: { readOnlyHint: 'yes' } }, 'tool "x"', 'Tool'), { code: 'FST_MCP_INVALID_DEFINITION' }) as Error
    messages.add(refused.message)
  }
  t.strictSame([...messages], ['Invalid definition of tool "x": not a valid Tool: /annotations/readOnlyHint Expected boolean'], 'one message, uncompiled or compiled')
})

t.test('a tool\'s prepared JSON text is its listed item, whatever its fields', async (t) => {
  const definitions: Array<Record<string, unknown>> = [
    { handler: () => 'x' },
    { title: 'Tïtle', description: 'd "q"', input: Type.Object({ a: Type.String({ default: 'x' }), 2: Type.Number(), b: Type.Optional(Type.Integer()) }), handler: () => 'x' },
    { input: { type: 'object', properties: { z: { type: 'string' }, 10: { type: 'number' }, __proto__: { type: 'string' } } }, output: Type.Object({ n: Type.Number({ maximum: 1e21 }) }), handler: () => ({ n: 1 }) },
    { annotations: { readOnlyHint: true, title: 'ä' }, icons: [{ src: 'https://x.test/i.png' }], _meta: { 'x/y': [1, 'é'] }, input: Type.Object({ q: Type.String({ pattern: '^\\\\d+$' }) }), handler: () => 'x' }
  ]
  for (const [i, definition] of definitions.entries()) {
    const entry = compileToolEntry(`t${i}`, definition as never, 'test')
    t.equal(entry.json, JSON.stringify(entry.listed), `definition ${i}`)
  }
})
