import fc from 'fast-check'
import t from 'tap'
import { errorResponse, errorResponseBody, partsResponse, prepareResult, preparedResponse, resultJsonResponse, resultParts } from '../lib/response/responses.js'

const RESULT = { tools: [{ name: 'é', inputSchema: { type: 'object' } }], note: 'π ≈ 3.14' }

function expected (id: string | number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, result: RESULT })
}

t.test('a prepared response is the JSON-RPC response for its id, byte for byte', async (t) => {
  const prepared = prepareResult(RESULT)
  t.equal(prepared.json, JSON.stringify(RESULT))
  // Integers, strings (escaped, non-ASCII, long) and every id seen twice, in any order.
  fc.assert(fc.property(
    fc.array(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.string(), fc.string({ unit: 'binary' }), fc.string({ minLength: 60, maxLength: 200 })), { maxLength: 40 }),
    (ids) => {
      for (const id of [...ids, ...ids.slice().reverse()]) {
        const bytes = preparedResponse(id, prepared)
        if (bytes.toString('utf8') !== expected(id)) return false
        if (!Buffer.from(expected(id), 'utf8').equals(bytes)) return false
      }
      return true
    }
  ))
})

t.test('a repeated id gets the same bytes without building them again, within a bound', async (t) => {
  const prepared = prepareResult(RESULT)
  const first = preparedResponse(1, prepared)
  t.equal(preparedResponse(1, prepared), first, 'the kept response is reused')
  t.not(preparedResponse('1', prepared), first, 'the string id "1" is another id')
  t.equal(preparedResponse('1', prepared).toString(), expected('1'))
  for (let id = 100; id < 200; id++) t.equal(preparedResponse(id, prepared).toString(), expected(id))
  t.ok(prepared.byId.size <= 16, `at most 16 responses kept (got ${prepared.byId.size})`)
  const long = 'x'.repeat(500)
  t.equal(preparedResponse(long, prepared).toString(), expected(long))
  t.notOk(prepared.byId.has(long), 'a long id is answered but not kept')
})

t.test('a large result keeps few whole responses, a very large one none', async (t) => {
  const large = prepareResult({ text: 'a'.repeat(100 * 1024) })
  for (let id = 0; id < 10; id++) t.equal(preparedResponse(id, large).length, Buffer.byteLength(JSON.stringify({ jsonrpc: '2.0', id, result: { text: 'a'.repeat(100 * 1024) } })))
  t.ok(large.byId.size <= 2, `at most 256 KiB kept (got ${large.byId.size} responses of ~100 KiB)`)
  const huge = prepareResult({ text: 'a'.repeat(300 * 1024) })
  preparedResponse(1, huge)
  t.equal(huge.byId.size, 0, 'a response over the budget is not kept')
})

t.test('error responses carry the id, code, message and data as JSON', async (t) => {
  t.same(JSON.parse(errorResponse(7, -32601, 'Method not found: x')), { jsonrpc: '2.0', id: 7, error: { code: -32601, message: 'Method not found: x' } })
  t.same(JSON.parse(errorResponse(undefined, -32700, 'Parse error')), { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } })
  t.same(JSON.parse(errorResponse('a"b', -32602, 'bad', { supported: ['2026-07-28'] })),
    { jsonrpc: '2.0', id: 'a"b', error: { code: -32602, message: 'bad', data: { supported: ['2026-07-28'] } } })
})

t.test('a rejection body is the error response, byte for byte, repeated or not', async (t) => {
  fc.assert(fc.property(
    fc.array(fc.tuple(fc.oneof(fc.integer(), fc.string()), fc.integer({ min: -32800, max: -32000 }), fc.string()), { maxLength: 80 }),
    (cases) => {
      for (const [id, code, message] of [...cases, ...cases]) {
        const body = errorResponseBody(id, code, message)
        if (body.toString() !== errorResponse(id, code, message)) return false
      }
      return true
    }
  ))
  t.equal(errorResponseBody(3, -32020, 'Header mismatch'), errorResponseBody(3, -32020, 'Header mismatch'), 'a repeated rejection reuses its bytes')
  t.equal(errorResponseBody(undefined, -32700, 'Parse error'), errorResponse(undefined, -32700, 'Parse error'), 'no id: built as text')
  t.equal(errorResponseBody(4, -32602, 'bad', { x: 1 }), errorResponse(4, -32602, 'bad', { x: 1 }), 'with data: built as text')
})

t.test('a result given as preset byte parts makes the same response, fields appended or not', async (t) => {
  const text = JSON.stringify(RESULT)
  fc.assert(fc.property(
    // The text cut anywhere into parts (a multi-byte character never split: parts are whole items' bytes).
    fc.uniqueArray(fc.integer({ min: 1, max: text.length - 1 }), { maxLength: 6 }),
    fc.oneof(fc.integer(), fc.string({ unit: 'binary' })),
    fc.constantFrom('', '"resultType":"complete"', '"resultType":"complete","ttlMs":5,"cacheScope":"ü"'),
    (cuts, id, fields) => {
      const at = [0, ...cuts.sort((a, b) => a - b), text.length]
      const parts = at.slice(1).map((end, i) => Buffer.from(text.slice(at[i], end)))
      const withFields = fields === '' ? text : text.slice(0, -1) + ',' + fields + '}'
      const bytes = partsResponse(id, resultParts(parts, fields))
      return bytes.equals(Buffer.from(resultJsonResponse(id, withFields)))
    }
  ))
  const parts = [Buffer.from('{"tools":['), Buffer.from('{"name":"é"}'), Buffer.from(']}')]
  const once = resultParts(parts, '')
  t.equal(once[1], parts[0], 'the parts are shared, not copied')
  t.equal(parts[2]?.toString(), ']}', 'appending fields leaves the parts as they were')
  resultParts(parts, '"a":1')
  t.equal(parts[2]?.toString(), ']}')
})
