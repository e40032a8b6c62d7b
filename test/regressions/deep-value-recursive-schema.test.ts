// Guards issue 22 item 12: a value nested deeper than the stack allows, sent
// against a recursive schema (TypeBox's check recurses), was answered -32603
// and logged as a server error; the README says it is the client's error.
// Validation catches the overflow: -32602 with the request's id, nothing
// logged as an error, in both eras.
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { defineTools } from '../../lib/index.js'
import { buildApp, captureLogs } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

const Node = Type.Recursive((self) => Type.Object({ children: Type.Array(self) }))
const tools = defineTools({ tree: { input: Type.Object({ root: Node }), handler: () => ({ content: [{ type: 'text', text: 'ok' }] }) } })

/** `{"children":[{"children":[...]}]}`, `depth` deep, as text (too deep to build and stringify). */
function deepTree (depth: number): string {
  return '{"children":['.repeat(depth) + ']}'.repeat(depth)
}

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: a tree deeper than the stack allows is the client's error (-32602 with the id)`, async (t) => {
    const { logger, records } = captureLogs('warn')
    const app = await buildApp(t, { server: tools as never }, { logger })
    const client = mcpClient(t, app)
    const meta = era === 'modern' ? ',"_meta":' + JSON.stringify(modernMeta()) : ''
    const body = '{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"tree","arguments":{"root":' + deepTree(50_000) + '}' + meta + '}}'
    const headers = era === 'modern'
      ? modernHeaders('tools/call', { name: 'tree' })
      : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
    const reply = await client.post(body, headers)
    assertError(t, reply, { status: era === 'modern' ? 400 : 200, code: -32602, id: 'deep', message: /nested too deeply/ })
    t.strictSame(records.filter((r) => r.level >= 50), [], 'no server error logged')
    // A shallow tree still works.
    const ok = era === 'modern'
      ? await client.modern('tools/call', { name: 'tree', arguments: { root: { children: [{ children: [] }] } } })
      : await client.legacy('tools/call', { name: 'tree', arguments: { root: { children: [{ children: [] }] } } }, { protocolVersion: '2025-11-25' })
    t.equal((ok.json as any)?.result?.content?.[0]?.text, 'ok')
  })
}
