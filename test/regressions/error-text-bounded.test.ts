// Guards issue 22 item 8: error texts were unbounded and echoed the client's
// input whole. A 300 KB unknown tool or prompt name came back whole (the
// README promises at most 64 characters of a client's value), and an
// argument error grew ~15x its input (one line per unknown property,
// each quoting the property's name). Client values are quoted to 64
// characters and a problem list stops after 10 lines ("and N more"; for
// arguments of over 1024 values, the first problem found and no more:
// issue 36 item 3).
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { definePrompts, defineResources, defineTools } from '../../lib/index.js'
import { QUOTED_CHARS } from '../../lib/protocol/describe.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const BIG = 300_000
const tools = defineTools({
  strict: {
    input: Type.Object({ n: Type.Integer() }, { additionalProperties: false }),
    handler: ({ n }) => ({ content: [{ type: 'text', text: String(n) }] })
  }
})
const prompts = definePrompts({
  strict: {
    arguments: Type.Object({ who: Type.String() }, { additionalProperties: false }),
    complete: { who: () => [] },
    handler: ({ who }) => `Hello ${who}`
  }
})
const resources = defineResources({ note: { uriTemplate: 'notes://{id}', read: ({ id }) => id } })
const server = { ...tools, ...resources, ...prompts }

/** The text the client reads: the error message, or a tool error's text. */
function answerText (json: any): string {
  return json?.error?.message ?? json?.result?.content?.[0]?.text ?? ''
}

/** Most characters any one answer may carry here: the fixed text plus a quoted value and 10 short problem lines. */
const MAX_ANSWER_CHARS = 4096

function manyUnknown (count: number, keyLength: number): Record<string, unknown> {
  const value: Record<string, unknown> = {}
  for (let i = 0; i < count; i++) value[String(i).padStart(keyLength, 'k')] = i
  return value
}

const CASES: Array<[string, string, Record<string, unknown>]> = [
  ['an unknown tool name', 'tools/call', { name: 'x'.repeat(BIG), arguments: {} }],
  ['an unknown prompt name', 'prompts/get', { name: 'x'.repeat(BIG) }],
  ['an unknown resource', 'resources/read', { uri: 'nowhere://' + 'x'.repeat(BIG) }],
  ['a completion for an unknown prompt', 'completion/complete', { ref: { type: 'ref/prompt', name: 'x'.repeat(BIG) }, argument: { name: 'a', value: 'b' } }],
  ['a completion for an unknown template', 'completion/complete', { ref: { type: 'ref/resource', uri: 'x'.repeat(BIG) }, argument: { name: 'a', value: 'b' } }],
  ['a tool argument with a long unknown property', 'tools/call', { name: 'strict', arguments: { n: 1, ['k'.repeat(BIG)]: 1 } }],
  ['40,000 unknown tool arguments', 'tools/call', { name: 'strict', arguments: { n: 1, ...manyUnknown(40_000, 8) } }],
  ['40,000 unknown prompt arguments', 'prompts/get', { name: 'strict', arguments: { who: 'a', ...manyUnknown(40_000, 8) } }],
  ['100 unknown tool arguments', 'tools/call', { name: 'strict', arguments: { n: 1, ...manyUnknown(100, 8) } }],
  ['100 unknown prompt arguments', 'prompts/get', { name: 'strict', arguments: { who: 'a', ...manyUnknown(100, 8) } }]
]

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: errors quote at most ${QUOTED_CHARS} characters of a client's value and list at most 10 problems`, async (t) => {
    const app = await buildApp(t, { server: server as never, limits: { bodyLimit: 8 * 1024 * 1024 } } as never)
    const client = mcpClient(t, app)
    for (const [what, method, params] of CASES) {
      const reply = era === 'legacy' ? await client.legacy(method, params, { protocolVersion: '2025-11-25' }) : await client.modern(method, params)
      const text = answerText(reply.json)
      t.ok(text.length > 0, `${what}: answered with an error`)
      t.ok(text.length <= MAX_ANSWER_CHARS, `${what}: the error text is ${text.length} characters`)
      t.notOk(/x{65}|k{65}/.test(text), `${what}: no run of more than ${QUOTED_CHARS} characters of the client's value`)
      if (what.startsWith('100 ')) t.match(text, /; and 90 more$/, `${what}: the rest are counted`)
      if (what.startsWith('40,000')) t.match(text, /: unexpected property; further problems not looked for$/, `${what}: the first problem, the rest not looked for`)
    }
  })
}
