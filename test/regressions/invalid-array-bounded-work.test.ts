// Guards issue 36 item 3: an invalid 1 MiB argument array stalled the event
// loop 0.7–18 s in every schema library, because the whole error list was
// collected though ten lines are shown (TypeBox 0.34 drained Errors(), Ajv
// ran with allErrors, the Standard Schema path took every issue). Now a
// failing check stops at its first problem and lists all of them only for
// values of at most 1024 values; Standard Schema arguments are bounded in
// values before their library runs (limits.maxArgumentValues). The work is
// counted here (calls of a check run per item), not timed; the stall
// figures are in `npm run bench:hostile`.
import { FormatRegistry, Type as LegacyType } from '@sinclair/typebox'
import { type } from 'arktype'
import t from 'tap'
import { Type } from 'typebox'
import * as v from 'valibot'
import { z } from 'zod'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { defineTools } from '../../lib/definitions/tools.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const ITEMS = 100_000
let calls = 0
// a format run once per item checked: counts the items a validator looked at
FormatRegistry.Set('counted-item', (value) => { calls++; return value === 'ok' })

const wrong = { xs: Array.from({ length: ITEMS }, () => 'wrong') }
const text = (result: any): string => result.content[0].text

const FIRST_ERROR: Record<string, unknown> = {
  'plain JSON Schema': { type: 'object', properties: { xs: { type: 'array', items: { type: 'string', format: 'counted-item' } } } },
  'typebox 1.x': Type.Object({ xs: Type.Array(Type.String({ format: 'counted-item' })) }),
  'typebox 0.34': LegacyType.Object({ xs: LegacyType.Array(LegacyType.String({ format: 'counted-item' })) })
}

for (const [name, input] of Object.entries(FIRST_ERROR)) {
  t.test(`${name}: ${ITEMS.toLocaleString('en')} wrong items are not all checked twice over`, async (t) => {
    const tools = defineTools({ x: { input: input as never, handler: () => ({ content: [] }) } })
    calls = 0
    const result = await tools.callTool({ name: 'x', arguments: wrong }, {} as never)
    t.ok(calls <= 10, `${calls} items checked (all problems collected: ${ITEMS.toLocaleString('en')} or more)`)
    t.equal(text(result), 'Invalid arguments for tool "x": xs[0]: must match format "counted-item"; further problems not looked for')
    calls = 0
    const small = await tools.callTool({ name: 'x', arguments: { xs: wrong.xs.slice(0, 100) } }, {} as never)
    t.match(text(small), /^Invalid arguments for tool "x": xs\[0\]: .*; and 90 more$/, 'a small value still has every problem listed')
  })
}

t.test('zod and valibot: arguments over limits.maxArgumentValues are refused before the library runs', async (t) => {
  let checked = 0
  const count = () => { checked++; return false }
  // valibot's checks cannot be listed as JSON Schema: its validate is counted per item instead
  const valibot = toStandardJsonSchema(v.object({ xs: v.array(v.picklist(['a'])) }))
  const validate = valibot['~standard'].validate
  Object.defineProperty(valibot['~standard'], 'validate', {
    value: (value: { xs?: unknown[] }) => { checked += value.xs?.length ?? 0; return validate(value) }
  })
  const tools = defineTools({
    zod: { input: z.object({ xs: z.array(z.string().refine(count)) }), handler: () => ({ content: [] }) },
    valibot: { input: valibot, handler: () => ({ content: [] }) }
  })
  for (const name of ['zod', 'valibot']) {
    checked = 0
    const result = await tools.callTool({ name, arguments: wrong }, {} as never)
    t.equal(checked, 0, `${name}: no item checked`)
    t.equal(text(result), `Invalid arguments for tool "${name}": arguments: more than 4096 values, more than this server accepts`)
    const small = await tools.callTool({ name, arguments: { xs: wrong.xs.slice(0, 100) } }, {} as never)
    t.equal(checked, 100, `${name}: a value within the bound is checked by its library`)
    checked = 0
    t.match(text(small), /; and 90 more$/)
  }
})

t.test('arktype: a failing value over 1024 values is refused on allows, without collecting issues', async (t) => {
  let checked = 0
  const item = type('string').narrow(() => { checked++; return false })
  const tools = defineTools({ ark: { input: type({ xs: item.array() }), handler: () => ({ content: [] }) } })
  const result = await tools.callTool({ name: 'ark', arguments: { xs: wrong.xs.slice(0, 3000) } }, {} as never)
  t.ok(checked <= 10, `${checked} items checked (issues for all: 3,000)`)
  t.equal(text(result), 'Invalid arguments for tool "ark": arguments: invalid (more than 1024 values: the problems were not located)')
  checked = 0
  const small = await tools.callTool({ name: 'ark', arguments: { xs: wrong.xs.slice(0, 100) } }, {} as never)
  t.ok(checked >= 100, 'a small value gets its issues from validate')
  t.match(text(small), /; and 90 more$/)
})

t.test('limits.maxArgumentValues is an option of the endpoint, checked at registration', async (t) => {
  const tools = defineTools({ zod: { input: z.object({ xs: z.array(z.string()) }), handler: () => 'ok' } })
  const app = await buildApp(t, { server: tools as never, limits: { maxArgumentValues: 20 } } as never)
  const client = mcpClient(t, app)
  const within = await client.legacy('tools/call', { name: 'zod', arguments: { xs: Array.from({ length: 18 }, () => 'a') } }, { protocolVersion: '2025-11-25' })
  t.equal(within.json.result.content[0].text, 'ok', '20 values: the object, its array and 18 items')
  const over = await client.legacy('tools/call', { name: 'zod', arguments: { xs: Array.from({ length: 19 }, () => 'a') } }, { protocolVersion: '2025-11-25' })
  t.match(over.json.result, { isError: true, content: [{ text: /arguments: more than 20 values/ }] })
  await t.rejects(buildApp(t, { server: tools as never, limits: { maxArgumentValues: 0 } } as never), { code: 'FST_MCP_INVALID_OPTION', message: /limits\.maxArgumentValues/ })
})
