// Guards issue 11 item 5: a `requestState` issued to one caller, replayed
// with another caller's credential (or none), returned the first caller's
// private answer; and the state carried earlier answers readable by anyone
// holding it. It is bound to the caller, the method and the params, and its
// content is encrypted; rotating secrets keeps working.
import t, { type Test } from 'tap'
import type { HandlerContext } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
const OK = { type: 'object', properties: { ok: { type: 'boolean' } } }

const server = {
  listTools: () => ({ tools: [{ name: 'greet', inputSchema: { type: 'object' } }, { name: 'other', inputSchema: { type: 'object' } }] }),
  async callTool (_params: unknown, ctx: HandlerContext) {
    const who = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'name' })
    await ctx.elicit({ message: 'Sure?', requestedSchema: OK }, { key: 'confirm' })
    return { content: [{ type: 'text', text: `hello ${String(who.content?.name)}` }] }
  }
}

const ELICIT = { elicitation: {} }
const SECRET = 'alice-private-answer'

async function roundTwo (t: Test, app: Parameters<typeof mcpClient>[1], authorization: string) {
  const client = mcpClient(t, app)
  const headers = { authorization }
  const first = await client.modern('tools/call', { name: 'greet', arguments: { a: 1 } }, { id: 1, capabilities: ELICIT, headers })
  t.equal(first.json.result.resultType, 'input_required')
  const second = await client.modern('tools/call', {
    name: 'greet',
    arguments: { a: 1 },
    requestState: first.json.result.requestState,
    inputResponses: { name: { action: 'accept', content: { name: SECRET } } }
  }, { id: 2, capabilities: ELICIT, headers })
  t.equal(second.json.result.resultType, 'input_required', 'round 2 asks the next question')
  return second.json.result.requestState as string
}

const CONFIRM = { confirm: { action: 'accept', content: { ok: true } } }

t.test('the owner completes; another caller, no caller, another method or other params are refused with -32602', async (t) => {
  const app = await buildApp(t, { server })
  const client = mcpClient(t, app)
  const state = await roundTwo(t, app, 'Bearer alice')

  const mine = await client.modern('tools/call', { name: 'greet', arguments: { a: 1 }, requestState: state, inputResponses: CONFIRM },
    { id: 3, capabilities: ELICIT, headers: { authorization: 'Bearer alice' } })
  t.equal(mine.json.result.content[0].text, `hello ${SECRET}`, 'the caller it was issued to completes')

  for (const [label, headers] of [['another credential', { authorization: 'Bearer mallory' }], ['no credential', {}]] as const) {
    const stolen = await client.modern('tools/call', { name: 'greet', arguments: { a: 1 }, requestState: state, inputResponses: CONFIRM },
      { id: 4, capabilities: ELICIT, headers })
    assertError(t, stolen, { status: 400, code: -32602, id: 4, message: /requestState/ })
    t.notMatch(stolen.body, SECRET, `${label}: the answer does not leak`)
  }
  const otherParams = await client.modern('tools/call', { name: 'greet', arguments: { a: 2 }, requestState: state, inputResponses: CONFIRM },
    { id: 5, capabilities: ELICIT, headers: { authorization: 'Bearer alice' } })
  assertError(t, otherParams, { status: 400, code: -32602, id: 5, message: /requestState/ })
  const otherTool = await client.modern('tools/call', { name: 'other', arguments: { a: 1 }, requestState: state, inputResponses: CONFIRM },
    { id: 6, capabilities: ELICIT, headers: { authorization: 'Bearer alice' } })
  assertError(t, otherTool, { status: 400, code: -32602, id: 6, message: /requestState/ })
  const otherMethod = await client.modern('prompts/get', { name: 'greet', arguments: { a: 1 }, requestState: state, inputResponses: CONFIRM },
    { id: 7, capabilities: ELICIT, headers: { authorization: 'Bearer alice' } })
  t.ok(otherMethod.json.error !== undefined, 'another method does not accept it')
})

t.test('earlier answers are not readable in the state', async (t) => {
  const app = await buildApp(t, { server })
  const state = await roundTwo(t, app, 'Bearer alice')
  for (const part of state.split('.')) {
    const decoded = Buffer.from(part, 'base64url').toString('latin1')
    t.notMatch(decoded, SECRET, 'no part of the token decodes to the answer')
    t.notMatch(decoded, /"name"|"confirm"|accept/, 'nor to the answer keys or actions')
  }
  t.notMatch(state, Buffer.from(SECRET).toString('base64url').slice(0, 12), 'nor does the raw token carry it')
})

t.test('key rotation: a state sealed with the old secret opens where it is still listed', async (t) => {
  const oldKey = 'o'.repeat(32)
  const newKey = 'n'.repeat(32)
  const before = await buildApp(t, { server, requestState: { secret: oldKey } })
  const after = await buildApp(t, { server, requestState: { secret: [newKey, oldKey] } })
  const dropped = await buildApp(t, { server, requestState: { secret: newKey } })
  const state = await roundTwo(t, before, 'Bearer alice')
  const params = { name: 'greet', arguments: { a: 1 }, requestState: state, inputResponses: CONFIRM }
  const opts = { id: 9, capabilities: ELICIT, headers: { authorization: 'Bearer alice' } }
  const rotated = await mcpClient(t, after).modern('tools/call', params, opts)
  t.equal(rotated.json.result?.content?.[0]?.text, `hello ${SECRET}`, 'opened with the second secret')
  const refused = await mcpClient(t, dropped).modern('tools/call', params, opts)
  assertError(t, refused, { status: 400, code: -32602, id: 9, message: /requestState/ })
})
