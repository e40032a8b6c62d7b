// A line of exactly maxMessageBytes sent with CRLF (as a Windows host
// writes) was refused as too long: the reader counted the `\r` it drops
// with the newline (lib/stdio/line-reader.ts). The limit is the message's;
// the CR, wherever the chunks split, is not part of it.
import { PassThrough } from 'node:stream'
import t from 'tap'
import { readLines } from '../../lib/stdio/line-reader.js'

const MAX = 64

async function linesOf (chunks: string[]): Promise<Array<string | { overlong: true }>> {
  const input = new PassThrough()
  const read = (async () => {
    const out: Array<string | { overlong: true }> = []
    for await (const line of readLines(input, MAX)) out.push(typeof line === 'string' ? line : { overlong: true })
    return out
  })()
  for (const chunk of chunks) input.write(chunk)
  input.end()
  return await read
}

const atLimit = 'a'.repeat(MAX)
const overLimit = 'b'.repeat(MAX + 1)

t.test('a line of exactly maxBytes is read with LF or CRLF, wherever the chunks split', async (t) => {
  t.strictSame(await linesOf([atLimit + '\n']), [atLimit], 'LF')
  t.strictSame(await linesOf([atLimit + '\r\n']), [atLimit], 'CRLF in one chunk')
  t.strictSame(await linesOf([atLimit + '\r', '\n']), [atLimit], 'the CR ending one chunk, the LF the next')
  t.strictSame(await linesOf([atLimit.slice(0, 10), atLimit.slice(10) + '\r', '\nnext\r\n']), [atLimit, 'next'], 'the line over three chunks')
  t.strictSame(await linesOf([atLimit + '\r']), [atLimit], 'an unterminated last line ending in CR')
})

t.test('one byte more is refused, CR or not; a CR inside a line counts', async (t) => {
  t.strictSame(await linesOf([overLimit + '\n']), [{ overlong: true }], 'LF')
  t.strictSame(await linesOf([overLimit + '\r\n']), [{ overlong: true }], 'CRLF')
  t.strictSame(await linesOf([atLimit + '\r', 'x\n']), [{ overlong: true }], 'a CR followed by more of the line')
  t.strictSame(await linesOf([atLimit.slice(1) + '\rx\n', 'ok\n']), [{ overlong: true }, 'ok'], 'a CR in the middle is the message\'s')
})
