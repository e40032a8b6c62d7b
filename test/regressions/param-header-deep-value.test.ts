// Guards issue 11 item 3: a deeply nested argument under an `x-mcp-header`
// property, sent with its `Mcp-Param-*` header, made JSON.stringify throw
// RangeError while the mismatch message was built; the endpoint answered
// HTTP 500 without an id. It must be a -32020 answer carrying the id.
import t from 'tap'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import { deepJson } from './helpers.js'

const TOOL = Object.freeze({
  name: 'route',
  inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } }
})

const server = {
  listTools: () => ({ tools: [structuredClone(TOOL)] }),
  callTool: () => ({ content: [{ type: 'text', text: 'ran' }] })
}

function deepCall (id: number): string {
  // Built as text: the value is too deep for JSON.stringify.
  return '{"jsonrpc":"2.0","id":' + id + ',"method":"tools/call","params":{"name":"route","arguments":{"region":' +
    deepJson(5000) + '},"_meta":' + JSON.stringify(modernMeta()) + '}}'
}

t.test('a deep value at an x-mcp-header argument is a -32020 answer with the id, never a 500', async (t) => {
  const app = await buildApp(t, { server })
  const client = mcpClient(t, app)
  const headers = { ...modernHeaders('tools/call', { name: 'route' }), 'mcp-param-region': 'eu' }
  const reply = await client.post(deepCall(7), headers)
  assertError(t, reply, { status: 400, code: -32020, id: 7, message: /Mcp-Param-Region/ })
  t.ok(reply.body.length < 2000, 'the message does not repeat the client\'s value at length')

  const missing = modernHeaders('tools/call', { name: 'route' })
  const noHeader = await client.post(deepCall(8), missing)
  assertError(t, noHeader, { status: 400, code: -32020, id: 8, message: /Mcp-Param-Region header is required/ })
})

t.test('a long string at an x-mcp-header argument is not echoed in full', async (t) => {
  const app = await buildApp(t, { server })
  const long = 'x'.repeat(200_000)
  const headers = { ...modernHeaders('tools/call', { name: 'route' }), 'mcp-param-region': 'eu' }
  const body = JSON.stringify({ jsonrpc: '2.0', id: 'long', method: 'tools/call', params: { name: 'route', arguments: { region: long }, _meta: modernMeta() } })
  const reply = await mcpClient(t, app).post(body, headers)
  assertError(t, reply, { status: 400, code: -32020, id: 'long', message: /Mcp-Param-Region header "eu" does not match body value "x+…/ })
  t.ok(reply.body.length < 2000, 'the message is short')
})
