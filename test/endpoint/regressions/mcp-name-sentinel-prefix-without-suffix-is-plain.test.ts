// Guards the Mcp-Name decoding rule: only a value that starts with
// `=?base64?` AND ends with `?=` is Base64-encoded (2026-07-28 Streamable
// HTTP, "Value Encoding"); a conforming client sends a name such as
// `=?base64?abc` as is, and the server must compare it as a plain value.
import t from 'tap'
import { buildApp, callResult, toolsModule } from '../../helpers/mcp-fixtures.js'
import { assertError, encodeHeaderValue, mcpClient } from '../../helpers/mcp-inject.js'

t.test('a plain name that only starts like the sentinel is compared as is', async (t) => {
  const app = await buildApp(t, { server: toolsModule({ callTool: (p: { name: string }) => callResult(p.name) }) })
  for (const name of ['=?base64?abc', '=?base64?', '=?base64?QUJD?=x']) {
    t.test(name, async (t) => {
      t.equal(encodeHeaderValue(name), name, 'a conforming client sends it unencoded')
      const reply = await mcpClient(t, app).modern('tools/call', { name }, { id: 1 })
      t.equal(reply.status, 200)
      t.strictSame(reply.json?.result?.content, callResult(name).content)
    })
  }
})

t.test('the same names with a different plain header are still a mismatch', async (t) => {
  const app = await buildApp(t, { server: toolsModule() })
  const reply = await mcpClient(t, app).modern('tools/call', { name: '=?base64?abc' }, { id: 2, headers: { 'mcp-name': '=?base64?abd' } })
  assertError(t, reply, { status: 400, code: -32020, id: 2 })
})
