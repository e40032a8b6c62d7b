// Guards issue 35 (CPU per request when workloads mix): the request path reads
// the classified message and the method table's entry of every request at many
// sites. When they came in several shapes (an object literal per message kind,
// table entries holding only the fields each method uses), each change of
// workload deoptimised those sites ("wrong map": isModernRequest, dispatch,
// around, checkEnvelope, methodIn, handleModern, checkHeaders, openRequest) and
// left them polymorphic. Every classified message is now one class
// (lib/protocol/jsonrpc.ts) and every entry carries every field in one order
// (lib/protocol/methods.ts): one hidden class each, checked with V8's own
// %HaveSameMap.
import { setFlagsFromString } from 'node:v8'
import { runInThisContext } from 'node:vm'
import t from 'tap'
import { classifyMessage } from '../../lib/protocol/jsonrpc.js'
import { METHODS } from '../../lib/protocol/methods.js'

setFlagsFromString('--allow-natives-syntax')
const haveSameMap = runInThisContext('(a, b) => %HaveSameMap(a, b)') as (a: object, b: object) => boolean

t.test('every kind of message is classified into one hidden class', async (t) => {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const bodies: Array<[string, unknown]> = [
    ['modern tools/call', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a', arguments: { q: 1 }, _meta: meta } }],
    ['legacy tools/call', { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'a', arguments: {} } }],
    ['initialize', { jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }],
    ['without params', { jsonrpc: '2.0', id: 3, method: 'ping' }],
    ['notification', { jsonrpc: '2.0', method: 'notifications/initialized' }],
    ['response', { jsonrpc: '2.0', id: 4, result: {} }],
    ['invalid version', { jsonrpc: '1.0', id: 5, method: 'ping' }],
    ['batch', [{ jsonrpc: '2.0', id: 6, method: 'ping' }]],
    ['array params', { jsonrpc: '2.0', id: 7, method: 'ping', params: [] }]
  ]
  const first = classifyMessage(bodies[0]?.[1])
  t.equal(first.kind, 'request')
  for (const [name, body] of bodies) {
    const message = classifyMessage(body)
    t.ok(haveSameMap(first, message), `${name} (${message.kind}): the same hidden class as a request`)
  }
  const request = classifyMessage(bodies[0]?.[1])
  t.same(request.kind === 'request' ? request.meta : undefined, meta, 'a request\'s `_meta` is read once, at classification')
})

t.test('every entry of the method table has one hidden class', async (t) => {
  const entries = Object.entries(METHODS)
  t.ok(entries.length > 10, 'the whole table')
  const [, first] = entries[0] as [string, object]
  for (const [method, entry] of entries) t.ok(haveSameMap(first, entry), `${method}: the same hidden class as the first entry`)
})
