// Guards issue 11 item 10: what an error to unparseable input carries as
// `id`. JSON-RPC 2.0 says `id: null`, but no MCP schema allows null
// (`RequestId` is string | integer in every version); 2025-11-25 and
// 2026-07-28 make `id` optional for exactly this case, and the draft-07
// versions have no valid id-less error at all. Decision: leave `id` out.
import t from 'tap'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'
import { specProblems } from '../helpers/spec-schemas.js'

const CASES: Array<[string, string, number, number]> = [
  ['not JSON', '{"jsonrpc":', 400, -32700],
  ['empty object', '{}', 400, -32600],
  ['batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', 400, -32600],
  ['id null', '{"jsonrpc":"2.0","id":null,"method":"ping"}', 400, -32600],
  ['fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', 400, -32600]
]

for (const [label, body, status, code] of CASES) {
  t.test(`${label}: no id, valid against the 2025-11-25 and 2026-07-28 schemas`, async (t) => {
    const app = await buildApp(t)
    for (const version of [undefined, '2025-11-25', '2026-07-28']) {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (version !== undefined) headers['mcp-protocol-version'] = version
      const reply = await mcpClient(t, app).post(body, headers)
      assertError(t, reply, { status, code, id: undefined })
      t.strictSame(specProblems('2026-07-28', 'JSONRPCErrorResponse', reply.json), [])
      t.strictSame(specProblems('2025-11-25', 'JSONRPCErrorResponse', reply.json), [])
      t.notOk(specProblems('2025-11-25', 'JSONRPCErrorResponse', { ...reply.json, id: null }).length === 0, 'id: null would not be valid')
    }
  })
}
