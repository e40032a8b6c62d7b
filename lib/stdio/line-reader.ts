/**
 * Newline-delimited messages from a byte stream (the stdio transport's
 * framing). Pulled with `for await`, so a consumer that stops pulling stops
 * the reading: the pipe fills and the host's writes wait, nothing queues up
 * here. A line longer than `maxBytes` is never held whole: its first bytes
 * are kept (to find the request id in them) and the rest is skipped up to
 * the next newline.
 */
import type { Readable } from 'node:stream'

/** A line too long to read: how long it grew before the newline, and its first bytes. */
export interface OverlongLine {
  readonly overlong: true
  readonly head: string
}

/** What the head of a refused line keeps: enough for `"jsonrpc"`, `"method"` and `"id"` in any order. */
const HEAD_BYTES = 512
const NEWLINE = 0x0a
const CR = 0x0d

function text (chunks: Buffer[]): string {
  const line = (chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks)).toString('utf8')
  return line.endsWith('\r') ? line.slice(0, -1) : line
}

/** Each line (without its newline; a trailing CR dropped), blank lines skipped; an unterminated last line counts. */
export async function * readLines (input: Readable, maxBytes: number): AsyncGenerator<string | OverlongLine> {
  let chunks: Buffer[] = []
  let held = 0
  // Set while skipping the rest of an over-long line.
  let skipping: Buffer | undefined
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    let start = 0
    while (start < bytes.length) {
      const end = bytes.indexOf(NEWLINE, start)
      const stop = end === -1 ? bytes.length : end
      if (skipping === undefined) {
        const piece = bytes.subarray(start, stop)
        // A CRLF host's line may hold maxBytes before its `\r` (dropped with the newline): the CR is not the message's.
        const limit = piece.length > 0 && piece[piece.length - 1] === CR ? maxBytes + 1 : maxBytes
        if (held + piece.length > limit) {
          // Keep only the head (a copy: the chunk it came from is released).
          skipping = Buffer.from(Buffer.concat([...chunks, piece]).subarray(0, HEAD_BYTES))
          chunks = []
          held = 0
        } else if (piece.length > 0) {
          chunks.push(piece)
          held += piece.length
        }
      }
      if (end === -1) break
      if (skipping !== undefined) {
        yield { overlong: true, head: skipping.toString('utf8') }
        skipping = undefined
      } else if (held > 0) {
        const line = text(chunks)
        chunks = []
        held = 0
        if (line.trim() !== '') yield line
      }
      start = end + 1
    }
  }
  if (skipping !== undefined) yield { overlong: true, head: skipping.toString('utf8') }
  else if (held > 0) {
    const line = text(chunks)
    if (line.trim() !== '') yield line
  }
}

/**
 * The top-level `"id"` a refused line's head names, when it can be read
 * there (a string, or a safe integer); an `"id"` nested in `params` is not it.
 */
export function idInHead (head: string): string | number | undefined {
  let depth = 0
  for (let i = 0; i < head.length; i++) {
    const c = head[i]
    if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
    else if (c === '"') {
      const close = endOfString(head, i)
      if (close === -1) return undefined
      if (depth === 1 && head.slice(i, close + 1) === '"id"') {
        const value = /^\s*:\s*("(?:[^"\\]|\\.){0,256}"|-?\d{1,16})\s*[,}]/.exec(head.slice(close + 1))
        // A string "id" that is a value, not a key, is followed by no colon.
        if (value !== null) return readId(value[1] as string)
      }
      i = close
    }
  }
  return undefined
}

function readId (json: string): string | number | undefined {
  try {
    const id = JSON.parse(json) as unknown
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined
  } catch {
    return undefined
  }
}

/** The index of the quote closing the string that opens at `open`, or -1. */
function endOfString (text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++
    else if (text[i] === '"') return i
  }
  return -1
}
