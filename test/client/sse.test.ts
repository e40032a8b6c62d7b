import t from 'tap'
import fc from 'fast-check'
import { sseEvents, readSseResponse, SseTooLargeError } from '../../lib/client/sse-reader.js'
import type { SseEvent } from '../../lib/client/sse-reader.js'

/** A stream that delivers `text` in the given chunk sizes (the rest in one chunk). */
function streamOf (text: string, cuts: number[] = []): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  const chunks: Uint8Array[] = []
  let at = 0
  for (const cut of [...new Set(cuts)].filter(c => c > 0 && c < bytes.length).sort((a, b) => a - b)) {
    chunks.push(bytes.slice(at, cut))
    at = cut
  }
  chunks.push(bytes.slice(at))
  return new ReadableStream({
    pull (controller) {
      const next = chunks.shift()
      if (next === undefined) controller.close()
      else controller.enqueue(next)
    }
  })
}

async function collect (stream: ReadableStream<Uint8Array>, maxBytes?: number): Promise<SseEvent[]> {
  const out: SseEvent[] = []
  for await (const e of sseEvents(stream, maxBytes)) out.push(e)
  return out
}

t.test('line endings, fields, comments and multi-line data', async t => {
  const text = ': keep-alive\r\n' +
    'event: message\r\nid: 7\r\ndata: {"a":1}\r\n\r\n' +
    'data:first\ndata: second\n\n' +
    'data: cr only\r\rretry: 100\r\n' +
    'event: custom\ndata\n\n' +
    'id: bad\0id\ndata: x\n\n' +
    ': only a comment\n\n' +
    'unknown: field\n\n'
  t.same(await collect(streamOf(text)), [
    { event: 'message', data: '{"a":1}', id: '7' },
    { event: 'message', data: 'first\nsecond', id: '7' },
    { event: 'message', data: 'cr only', id: '7' },
    { event: 'custom', data: '', id: '7' },
    { event: 'message', data: 'x', id: '7' } // an id with NUL is ignored
  ])
})

t.test('an event still open at the end of the stream is delivered', async t => {
  t.same(await collect(streamOf('data: tail')), [{ event: 'message', data: 'tail', id: null }])
  t.same(await collect(streamOf('data: tail\n')), [{ event: 'message', data: 'tail', id: null }])
})

t.test('property: chunk boundaries (inside CRLF and inside UTF-8 sequences) never change the events', async t => {
  const dataLine = fc.string({ unit: fc.constantFrom('a', 'é', '世', '😀', ' ', ':', '{', '"') })
  const eol = fc.constantFrom('\n', '\r\n', '\r')
  await fc.assert(fc.asyncProperty(
    fc.array(fc.tuple(fc.array(dataLine, { minLength: 1, maxLength: 3 }), eol), { minLength: 1, maxLength: 5 }),
    fc.array(fc.nat({ max: 400 }), { maxLength: 12 }),
    async (events, cuts) => {
      const text = events.map(([lines, nl]) => lines.map(l => `data: ${l}${nl}`).join('') + nl).join('')
      const whole = await collect(streamOf(text))
      const split = await collect(streamOf(text, cuts))
      t.strictSame(split, whole)
      t.strictSame(whole.map(e => e.data), events.map(([lines]) => lines.join('\n')))
    }
  ), { numRuns: 200 })
})

t.test('readSseResponse skips notifications and junk, stops at the response', async t => {
  let pulled = 0
  let cancelled = false
  const parts = [
    'data: not json\n\n',
    'data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n',
    'data: {"jsonrpc":"2.0","id":9,"result":{"other":true}}\n\n',
    'data: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n',
    'data: {"jsonrpc":"2.0","id":1,"result":{"late":true}}\n\n'
  ]
  const stream = new ReadableStream<Uint8Array>({
    pull (controller) {
      const next = parts.shift()
      if (next === undefined) { controller.close(); return }
      pulled++
      controller.enqueue(new TextEncoder().encode(next))
    },
    cancel () { cancelled = true }
  }, { highWaterMark: 0 })
  const message = await readSseResponse(stream, m => (m as { id?: unknown }).id === 1)
  t.same(message, { jsonrpc: '2.0', id: 1, result: { ok: true } })
  t.equal(pulled, 4, 'stopped reading after the response')
  t.ok(cancelled, 'and cancelled the rest of the stream')
})

t.test('readSseResponse: null when the stream ends without a response', async t => {
  t.equal(await readSseResponse(streamOf(': ping\n\ndata: {"jsonrpc":"2.0","method":"x"}\n\n'), () => false), null)
})

t.test('a stream larger than the limit is refused', async t => {
  await t.rejects(collect(streamOf(': ' + 'x'.repeat(5000) + '\n'), 1000), SseTooLargeError)
})
