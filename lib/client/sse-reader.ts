/**
 * Reading a Server-Sent Events body (text/event-stream), as the SSE
 * specification's parsing rules describe: lines end with CRLF, LF or CR;
 * `data:` lines of one event are joined with "\n"; a blank line dispatches
 * the event; lines starting with ":" are comments (keep-alives).
 */

export interface SseEvent {
  event: string
  data: string
  id: string | null
}

/** Thrown when the stream carries more than `maxBytes`. */
export class SseTooLargeError extends Error {
  override readonly name = 'SseTooLargeError'
}

/**
 * The events of a stream, in order. An event still open when the stream
 * ends is dispatched too (the SSE spec drops it; servers that close right
 * after their last `data:` line are common enough to be lenient here).
 */
export async function * sseEvents (body: ReadableStream<Uint8Array>, maxBytes = Infinity): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let received = 0
  let event = ''
  let data: string[] = []
  let id: string | null = null
  let pendingCr = false

  // One parsed line; returns an event when a blank line dispatches one.
  const line = (text: string): SseEvent | null => {
    if (text === '') {
      const out = data.length > 0 ? { event: event === '' ? 'message' : event, data: data.join('\n'), id } : null
      event = ''
      data = []
      return out
    }
    if (text.startsWith(':')) return null
    const colon = text.indexOf(':')
    const field = colon === -1 ? text : text.slice(0, colon)
    let value = colon === -1 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') event = value
    else if (field === 'id' && !value.includes('\0')) id = value
    return null
  }

  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      received += value.byteLength
      if (received > maxBytes) throw new SseTooLargeError(`event stream larger than ${maxBytes} bytes`)
      buffer += decoder.decode(value, { stream: true })
      let start = 0
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer.charCodeAt(i)
        if (c === 10 && pendingCr) { // the LF of a CRLF already ended the line
          pendingCr = false
          start = i + 1
          continue
        }
        pendingCr = false
        if (c === 10 || c === 13) {
          pendingCr = c === 13
          const out = line(buffer.slice(start, i))
          start = i + 1
          if (out !== null) yield out
        }
      }
      buffer = buffer.slice(start)
    }
    buffer += decoder.decode()
    if (buffer !== '') {
      const out = line(buffer)
      if (out !== null) yield out
    }
    const last = line('')
    if (last !== null) yield last
  } finally {
    // Stop the transfer when the caller stops reading (it found its response).
    reader.cancel().catch(() => {})
  }
}

/**
 * The data of the first event that parses as JSON and that `isResponse`
 * accepts (the JSON-RPC response the caller waits for); notifications,
 * server requests and non-JSON events are skipped. Null when the stream ends
 * without one.
 */
export async function readSseResponse (
  body: ReadableStream<Uint8Array>,
  isResponse: (message: unknown) => boolean,
  maxBytes?: number
): Promise<unknown> {
  for await (const { data } of sseEvents(body, maxBytes)) {
    let message: unknown
    try {
      message = JSON.parse(data)
    } catch {
      continue
    }
    if (isResponse(message)) return message
  }
  return null
}
