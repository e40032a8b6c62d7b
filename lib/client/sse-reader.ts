/**
 * Reading a Server-Sent Events body (text/event-stream) into events, with a
 * bound on the bytes read.
 */
import { createParser } from 'eventsource-parser'

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
 * The events of a stream, in order, as `eventsource-parser` (the parser of the
 * official SDK's client) reads them. An event still open when the stream ends
 * is dispatched too (the SSE spec drops it; servers that close right after
 * their last `data:` line are common enough to be lenient here).
 */
export async function * sseEvents (body: ReadableStream<Uint8Array>, maxBytes = Infinity): AsyncGenerator<SseEvent> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const parsed: SseEvent[] = []
  // The parser reports each event's own `id:`; the spec's last event ID carries over to later events.
  let lastId: string | null = null
  const parser = createParser({
    onEvent ({ event, data, id }) {
      if (id !== undefined) lastId = id
      parsed.push({ event: event ?? 'message', data, id: lastId })
    }
  })
  let received = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      received += value.byteLength
      if (received > maxBytes) throw new SseTooLargeError(`event stream larger than ${maxBytes} bytes`)
      parser.feed(decoder.decode(value, { stream: true }))
      yield * parsed.splice(0)
    }
    // End the last line and dispatch what is still open.
    parser.feed(decoder.decode() + '\n\n')
    yield * parsed.splice(0)
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
