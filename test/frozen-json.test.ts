import t from 'tap'
import { jsonOf } from '../lib/frozen-json.js'

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
