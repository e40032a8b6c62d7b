// Guards issue 11 item 8: the rejection memos (mismatch messages, prepared
// rejection bytes) kept messages embedding the client's strings; 460
// requests of 1 MB left ~92 MB held for good. Client values are cut short in
// messages, and what the memos keep is bounded in bytes.
import t from 'tap'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import { MB, settledBytes } from './helpers.js'

const ROUNDS = 120
const VALUE_BYTES = 400_000

t.test('distinct huge mismatching values leave no memory held, and answers stay short', async (t) => {
  const app = await buildApp(t)
  const send = async (i: number, kind: 'method' | 'name' | 'version') => {
    const big = String(i).padStart(8, '0') + 'x'.repeat(VALUE_BYTES)
    const method = kind === 'method' ? big : 'tools/call'
    const params: Record<string, unknown> = { name: kind === 'name' ? big : 'echo', arguments: { text: 'a' }, _meta: modernMeta() }
    if (kind === 'version') (params._meta as Record<string, unknown>)['io.modelcontextprotocol/protocolVersion'] = big
    const headers = { ...modernHeaders('tools/call', { name: 'echo' }), 'content-type': 'application/json' }
    const reply = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify({ jsonrpc: '2.0', id: i, method, params }) })
    t.equal(reply.statusCode, 400)
    return reply.body.length
  }
  for (let i = 0; i < 5; i++) await send(i, 'method')
  const before = await settledBytes()
  let longest = 0
  for (let i = 0; i < ROUNDS; i++) longest = Math.max(longest, await send(1000 + i, (['method', 'name', 'version'] as const)[i % 3] as 'method'))
  const held = (await settledBytes()) - before
  t.ok(longest < 2000, `answers stay short (longest ${longest} bytes)`)
  t.ok(held < 8 * MB, `memory held after ${ROUNDS} requests of ${VALUE_BYTES} bytes: ${(held / MB).toFixed(1)} MB (bound 8 MB)`)
})
