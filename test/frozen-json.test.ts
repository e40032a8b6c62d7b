import t from 'tap'
import { isImmutableData, jsonBytesOf, jsonOf, memoizeImmutable, presetJsonBytes } from '../lib/response/frozen-json.js'

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

t.test('deeply frozen data is serialised once and reused', async (t) => {
  const list = deepFreeze({ tools: [{ name: 'a', inputSchema: { type: 'object' } }] })
  const first = jsonOf(list)
  t.equal(first, JSON.stringify(list))
  t.equal(jsonOf(list), first)
})

t.test('mutable parts are serialised afresh every time', async (t) => {
  const tools = [{ name: 'a' }]
  const shallow = Object.freeze({ tools }) // frozen outside, mutable inside
  t.equal(jsonOf(shallow), '{"tools":[{"name":"a"}]}')
  tools.push({ name: 'b' })
  t.equal(jsonOf(shallow), '{"tools":[{"name":"a"},{"name":"b"}]}', 'the change shows')

  const open = { n: 1 }
  t.equal(jsonOf(open), '{"n":1}')
  open.n = 2
  t.equal(jsonOf(open), '{"n":2}')
})

t.test('getters and toJSON are never cached, even when frozen', async (t) => {
  let n = 0
  const withGetter = Object.freeze({ get n () { return ++n } })
  t.equal(jsonOf(withGetter), '{"n":1}')
  t.equal(jsonOf(withGetter), '{"n":2}')
  let m = 0
  const withToJson = Object.freeze({ toJSON () { return { m: ++m } } })
  t.equal(jsonOf(withToJson), '{"m":1}')
  t.equal(jsonOf(withToJson), '{"m":2}')
  const nested = deepFreeze({ inner: Object.freeze({ get x () { return ++n } }) })
  t.not(jsonOf(nested), jsonOf(nested), 'a getter deep inside is read every time')
})

t.test('memoizeImmutable computes once per deeply frozen value, every time otherwise', async (t) => {
  const cache = new WeakMap<object, number>()
  let calls = 0
  const compute = (): number => ++calls
  const frozen = deepFreeze({ a: [1, 2, { b: 3 }] })
  t.equal(memoizeImmutable(cache, frozen, compute), 1)
  t.equal(memoizeImmutable(cache, frozen, compute), 1, 'served from the cache')
  const shallow = Object.freeze({ a: [1] })
  t.equal(memoizeImmutable(cache, shallow, compute), 2)
  t.equal(memoizeImmutable(cache, shallow, compute), 3, 'a mutable inside means no caching')
  t.equal(isImmutableData(frozen), true)
  t.equal(isImmutableData(shallow), false)
})

t.test('a frozen tools/list result is answered identically every time', async (t) => {
  const { default: Fastify } = await import('fastify')
  const { default: mcp } = await import('../lib/index.js')
  const list = deepFreeze({ tools: [{ name: 'x', inputSchema: { type: 'object' } }] })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcp, { server: { listTools: () => list, callTool: () => ({ content: [] }) }, serverInfo: { name: 's', version: '1' }, cacheHints: { results: { ttlMs: 5, cacheScope: 'public' } } })
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
  const bodies = []
  for (const id of [1, 2]) {
    const reply = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' }, payload: { jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: meta } } })
    bodies.push(reply.json())
  }
  for (const [i, body] of bodies.entries()) {
    t.same(body, { jsonrpc: '2.0', id: i + 1, result: { tools: list.tools, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } }, ttlMs: 5, cacheScope: 'public' } })
  }
})

t.test('preset bytes: the value is immutable data, its text decoded from the bytes, never walked', async (t) => {
  const items = Object.freeze([{ name: 'é' }])
  // The bytes say something the items do not: proof that the text comes from them.
  const list = presetJsonBytes({ tools: items }, [Buffer.from('{"tools":['), Buffer.from('{"name":"ü"}'), Buffer.from(']}')])
  t.ok(Object.isFrozen(list))
  t.ok(isImmutableData(list))
  t.equal(jsonOf(list), '{"tools":[{"name":"ü"}]}')
  t.equal(jsonBytesOf(list)?.length, 3)
  t.equal(jsonBytesOf(deepFreeze({ tools: [] })), undefined, 'other values have none')
})
