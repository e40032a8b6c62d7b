// Guards issue 11 item 3: params nested deeper than the stack allows, sent
// to a tool that asks the client for input, made the request-state digest
// (canonical JSON, recursive) throw while the input_required result was
// sealed: -32603 and a logged server error. It is the client's fault: -32602.
import t from 'tap'
import { buildApp, captureLogs } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import type { HandlerContext } from '../../lib/index.js'
import { deepJson } from './helpers.js'

const server = {
  listTools: () => ({ tools: [{ name: 'ask', inputSchema: { type: 'object' } }] }),
  async callTool (_params: unknown, ctx: HandlerContext) {
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
    return { content: [{ type: 'text', text: String(answer.action) }] }
  }
}

for (const where of ['arguments', 'params']) {
  t.test(`deep ${where} to an input-asking tool answer -32602 with the id, and log no server error`, async (t) => {
    const { logger, records } = captureLogs('warn')
    const app = await buildApp(t, { server }, { logger })
    const deep = deepJson(20_000)
    const params = where === 'arguments'
      ? '{"name":"ask","arguments":{"x":' + deep + '},"_meta":' + JSON.stringify(modernMeta({ elicitation: {} })) + '}'
      : '{"name":"ask","extra":' + deep + ',"arguments":{},"_meta":' + JSON.stringify(modernMeta({ elicitation: {} })) + '}'
    const body = '{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":' + params + '}'
    const reply = await mcpClient(t, app).post(body, modernHeaders('tools/call', { name: 'ask' }))
    assertError(t, reply, { status: 400, code: -32602, id: 'deep', message: /nested too deeply/ })
    t.strictSame(records.filter((r) => r.level >= 50), [], 'no server error logged')
  })
}
