// Guards issue 11 item 10: `inputResponses` sent without any `requestState`.
// Decision: a first request may answer up front (SEP-2322; the conformance
// scenario input-required-result-ignore-extra-params checks it), but only the
// questions the handler asks take answers, each shape-checked; unknown keys are
// ignored, and under a state an answer counts only for the question it records.
import t from 'tap'
import type { HandlerContext } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

let runs = 0
const server = {
  listTools: () => ({ tools: [{ name: 'delete', inputSchema: { type: 'object' } }] }),
  async callTool (_params: unknown, ctx: HandlerContext) {
    const ok = await ctx.elicit({ message: 'Really delete?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'sure' })
    runs++
    return { content: [{ type: 'text', text: `deleted: ${String(ok.action)}` }] }
  }
}
const CAPS = { capabilities: { elicitation: {} } }

t.test('a first request may answer up front; extra keys are ignored', async (t) => {
  runs = 0
  const client = mcpClient(t, await buildApp(t, { server }))
  const upfront = await client.modern('tools/call', {
    name: 'delete',
    arguments: {},
    inputResponses: { sure: { action: 'decline' }, other: { action: 'accept', content: { x: 1 } } }
  }, { id: 1, ...CAPS })
  t.equal(upfront.status, 200)
  t.equal(upfront.json.result.content[0].text, 'deleted: decline', 'the answer to the asked key is used')
  t.equal(runs, 1)
})

t.test('an answer given up front is shape-checked like any other', async (t) => {
  runs = 0
  const client = mcpClient(t, await buildApp(t, { server }))
  const bad = await client.modern('tools/call', { name: 'delete', arguments: {}, inputResponses: { sure: { action: 'maybe' } } }, { id: 2, ...CAPS })
  t.equal(bad.status, 400)
  t.equal(bad.json.error.code, -32602)
  t.equal(bad.json.id, 2)
  t.equal(runs, 0, 'the work past the question never ran')
})

t.test('under a state, an answer counts only for the question the state records', async (t) => {
  runs = 0
  const client = mcpClient(t, await buildApp(t, { server }))
  const first = await client.modern('tools/call', { name: 'delete', arguments: {} }, { id: 3, ...CAPS })
  t.equal(first.json.result.resultType, 'input_required')
  const state = first.json.result.requestState
  t.type(state, 'string')
  const wrongKey = await client.modern('tools/call', { name: 'delete', arguments: {}, requestState: state, inputResponses: { other: { action: 'accept' } } }, { id: 4, ...CAPS })
  t.equal(wrongKey.json.result.resultType, 'input_required', 'an answer under another key does not count: asked again')
  t.equal(runs, 0)
  const retry = await client.modern('tools/call', { name: 'delete', arguments: {}, requestState: state, inputResponses: { sure: { action: 'accept', content: { ok: true } } } }, { id: 5, ...CAPS })
  t.equal(retry.json.result.content[0].text, 'deleted: accept')
  t.equal(runs, 1)
})
