// Guards issue 11 item 10: `inputResponses` sent without any `requestState`
// were taken as given (a client could answer questions it was never asked).
// Decision: without a state they are ignored; the handler's questions are
// asked again, with a state the retry must echo.
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

t.test('inputResponses without requestState are ignored: the question is asked again', async (t) => {
  const app = await buildApp(t, { server })
  const client = mcpClient(t, app)
  const forged = await client.modern('tools/call', { name: 'delete', arguments: {}, inputResponses: { sure: { action: 'accept', content: { ok: true } } } },
    { id: 1, capabilities: { elicitation: {} } })
  t.equal(forged.status, 200)
  t.equal(forged.json.result.resultType, 'input_required', 'not answered from the unsolicited responses')
  t.strictSame(Object.keys(forged.json.result.inputRequests), ['sure'])
  t.type(forged.json.result.requestState, 'string')
  t.equal(runs, 0, 'the work past the question never ran')

  const retry = await client.modern('tools/call', { name: 'delete', arguments: {}, requestState: forged.json.result.requestState, inputResponses: { sure: { action: 'accept', content: { ok: true } } } },
    { id: 2, capabilities: { elicitation: {} } })
  t.equal(retry.json.result.content[0].text, 'deleted: accept', 'with the state the answer is used')
  t.equal(runs, 1)
})
