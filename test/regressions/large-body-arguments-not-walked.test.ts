// Guards issue 36 (the stall figures of `npm run bench:hostile`): a failing
// argument check counted the arguments' values to decide whether to list
// every problem, and counting an object's properties enumerates all of them
// first: a 1 MiB object of 83,000 unknown properties cost another walk as
// long as parsing it (137 ms of blocked event loop on a quiet machine, with
// the parse). Arguments that came in a body over DETAILED_BODY_BYTES now get
// the first problem found without being walked; smaller ones keep the full
// list. The work is counted here (property enumerations), not timed.
import { Type as LegacyType } from '@sinclair/typebox'
import t from 'tap'
import { Type } from 'typebox'
import { z } from 'zod'
import { defineTools } from '../../lib/definitions/tools.js'
import { DETAILED_BODY_BYTES } from '../../lib/definitions/validation.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const text = (result: any): string => result.content[0].text
const requestOf = (bodyBytes: number) => ({ request: { headers: { 'content-length': String(bodyBytes) } } }) as never

const STRICT: Record<string, unknown> = {
  'plain JSON Schema': { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false },
  'typebox 1.x': Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
  'typebox 0.34': LegacyType.Object({ n: LegacyType.Integer() }, { additionalProperties: false })
}

/** An object of `count` unknown properties that counts how often its keys are enumerated. */
function countingObject (count: number): { value: Record<string, unknown>, enumerations: () => number } {
  let enumerations = 0
  const target = Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]))
  const value = new Proxy(target, {
    ownKeys (object) {
      enumerations++
      return Reflect.ownKeys(object)
    }
  })
  return { value, enumerations: () => enumerations }
}

for (const [name, input] of Object.entries(STRICT)) {
  t.test(`${name}: failing arguments of a body over ${DETAILED_BODY_BYTES} bytes are not walked`, async (t) => {
    const tools = defineTools({ strict: { input: input as never, handler: () => ({ content: [] }) } })
    // compiled and warmed first: what is counted below is the failing check's own work
    await tools.callTool({ name: 'strict', arguments: { n: 1 } }, requestOf(100))
    const large = countingObject(2000)
    const result = await tools.callTool({ name: 'strict', arguments: large.value }, requestOf(DETAILED_BODY_BYTES + 1))
    t.equal(large.enumerations(), 0, 'the properties were never enumerated')
    t.equal(text(result), 'Invalid arguments for tool "strict": n: required property missing; further problems not looked for')
    const small = countingObject(20)
    await tools.callTool({ name: 'strict', arguments: small.value }, requestOf(DETAILED_BODY_BYTES))
    t.ok(small.enumerations() > 0, 'a small body: its values are counted')
    const listed = await tools.callTool({ name: 'strict', arguments: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 1])) }, requestOf(DETAILED_BODY_BYTES))
    t.match(text(listed), /^Invalid arguments for tool "strict": n: required property missing.*; and 11 more$/, 'and every problem is looked for')
  })
}

t.test('through the endpoint: a body over the bound gets the first problem, a smaller one every problem', async (t) => {
  const tools = defineTools({
    legacy: { input: LegacyType.Object({ a: LegacyType.Integer(), b: LegacyType.Integer(), pad: LegacyType.String() }), handler: () => 'ok' },
    json: { input: Type.Object({ a: Type.Integer(), b: Type.Integer(), pad: Type.String() }), handler: () => 'ok' },
    zod: { input: z.object({ a: z.number().int(), b: z.number().int(), pad: z.string() }), handler: () => 'ok' }
  })
  const app = await buildApp(t, { server: tools as never })
  const client = mcpClient(t, app)
  for (const name of ['legacy', 'json']) {
    const small = await client.legacy('tools/call', { name, arguments: { a: 'x', b: 'y', pad: '' } }, { protocolVersion: '2025-11-25' })
    t.match(text(small.json.result), /^Invalid arguments for tool "\w+": a: .*; b: /, `${name}: a small body lists both problems`)
    const large = await client.legacy('tools/call', { name, arguments: { a: 'x', b: 'y', pad: 'p'.repeat(DETAILED_BODY_BYTES) } }, { protocolVersion: '2025-11-25' })
    t.match(text(large.json.result), /^Invalid arguments for tool "\w+": a: [^;]*; further problems not looked for$/, `${name}: a large body, the first problem only`)
  }
  // a Standard Schema library collects its issues itself: the body's size changes nothing there
  const zod = await client.legacy('tools/call', { name: 'zod', arguments: { a: 'x', b: 'y', pad: 'p'.repeat(DETAILED_BODY_BYTES) } }, { protocolVersion: '2025-11-25' })
  t.match(text(zod.json.result), /a: .*; b: /, 'zod: every issue it collected')
})
