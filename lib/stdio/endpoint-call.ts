/**
 * One stdio message through the app's own endpoint, as an HTTP POST that
 * never touches a socket: a request and response of the transport's own
 * (lib/stdio/line-request.ts, lib/stdio/line-response.ts) handed to
 * `app.routing`, so the app's hooks, the plugin's Origin/Host guard and
 * authorization, body limit, parser, telemetry, MCP hooks and logging all
 * run exactly as they do for a POST over the network. Cancelling a call
 * destroys its response, which is what a client disconnecting does over
 * HTTP (`ctx.signal` aborts, a stream is cleaned up).
 *
 * The answer is read as it is written: a JSON body is one message, an SSE
 * body (progress, log messages, the legacy era's questions to the client, a
 * `subscriptions/listen` stream) one message per event, parsed from the
 * written text. The response takes its next chunk only once the messages of
 * the last one were handed on, so a slow consumer slows the endpoint's
 * stream down (backpressure).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { StringDecoder } from 'node:string_decoder'
import type { FastifyInstance } from 'fastify'
import { LineRequest, type LineSocket } from './line-request.js'
import { LineResponse, type ResponseSink } from './line-response.js'

/** Where calls go: the app, the endpoint's path, and the connection they come over. */
export interface EndpointTarget {
  readonly app: FastifyInstance
  readonly path: string
  readonly socket: LineSocket
}

/** What the endpoint writes before each event's data, in the common frame (lib/streams/sse-writer.ts). */
const DATA_PREFIX = 'data: '

export class EndpointCall implements ResponseSink {
  #request: LineRequest | undefined
  #response: LineResponse | undefined
  #cancelled = false
  #status = 0
  #headers: Readonly<OutgoingHttpHeaders> = {}
  #eventStream = false
  /** Messages read from the body and not yet handed on. */
  #messages: string[] = []
  /** Lets the response write its next chunk (held while messages wait). */
  #next: (() => void) | undefined
  /** Wakes the reader waiting for more. */
  #wake: (() => void) | undefined
  #done = false
  /** A JSON body as written so far; for an event stream, the text after its last complete event. */
  #text = ''
  #decoder: StringDecoder | undefined

  /** The answer's HTTP status, once it started (0 before). */
  get status (): number {
    return this.#status
  }

  /** The answer's HTTP headers (lower-case names), once it started. */
  get headers (): Readonly<OutgoingHttpHeaders> {
    return this.#headers
  }

  /** True once `cancel` was called: nothing more of this call is delivered. */
  get cancelled (): boolean {
    return this.#cancelled
  }

  /** Closes the response as a disconnecting client would (now, or as soon as the call is sent). */
  cancel (): void {
    if (this.#cancelled) return
    this.#cancelled = true
    this.#request?.abort()
    if (this.#response !== undefined && !this.#response.writableFinished) this.#response.destroy()
    this.#finish()
  }

  /**
   * Sends `method` to the endpoint with `headers` and, for a POST, the
   * message `payload` (a GET opens the legacy standalone stream, a DELETE
   * ends a legacy session); yields each JSON-RPC message of the answer,
   * serialised as the endpoint wrote it.
   */
  async * send (target: EndpointTarget, method: 'POST' | 'GET' | 'DELETE', headers: Readonly<Record<string, string>>, payload?: string): AsyncGenerator<string> {
    if (this.#cancelled) return
    const request = this.#request = new LineRequest(target.socket, method, target.path, headers, payload)
    const response = this.#response = new LineResponse(request, this)
    // Fastify reads the members the two implement (lib/stdio/line-request.ts, lib/stdio/line-response.ts), not the whole of node:http's types.
    target.app.routing(request as unknown as IncomingMessage, response as unknown as ServerResponse)
    const messages = this.#messages
    try {
      for (;;) {
        while (messages.length > 0) {
          if (this.#cancelled) return
          yield messages.shift() as string
        }
        if (this.#done || this.#cancelled) return
        const next = this.#next
        this.#next = undefined
        await new Promise<void>((resolve) => {
          this.#wake = resolve
          next?.()
        })
      }
    } finally {
      // The reader stopped before the answer ended: nobody reads the rest, so the call goes as a disconnecting client's would.
      if (!this.#done) this.cancel()
    }
  }

  started (status: number, headers: Readonly<OutgoingHttpHeaders>): void {
    this.#status = status
    this.#headers = headers
    this.#eventStream = String(headers['content-type'] ?? '').startsWith('text/event-stream')
  }

  chunk (chunk: string | Buffer, next: () => void): void {
    const text = typeof chunk === 'string' ? chunk : (this.#decoder ??= new StringDecoder('utf8')).write(chunk)
    if (!this.#eventStream || this.#cancelled) {
      if (!this.#cancelled) this.#text += text
      next()
      return
    }
    this.#readEvents(text)
    if (this.#messages.length === 0) {
      next()
      return
    }
    this.#next = next
    this.#wakeReader()
  }

  ended (): void {
    const rest = this.#decoder?.end() ?? ''
    if (this.#eventStream) {
      // An event still open when the body ends is taken too (what lib/client/sse-reader.ts does).
      this.#readEvents(rest + '\n\n')
    } else {
      const body = (this.#text + rest).trim()
      if (body !== '') this.#messages.push(body)
    }
    this.#text = ''
    this.#finish()
  }

  closed (): void {
    // Destroyed before its end (cancelled, or dropped by the endpoint): what was read of a JSON body is no message.
    this.#text = ''
    this.#finish()
  }

  #finish (): void {
    this.#done = true
    const next = this.#next
    this.#next = undefined
    next?.()
    this.#wakeReader()
  }

  #wakeReader (): void {
    const wake = this.#wake
    this.#wake = undefined
    wake?.()
  }

  /** Adds the data of every complete event in the text read so far; the rest waits for the next chunk. */
  #readEvents (text: string): void {
    let buffered = this.#text === '' ? text : this.#text + text
    if (buffered.includes('\r')) {
      // A '\r' at the end may be the first half of a '\r\n' the next chunk completes: it waits for that chunk.
      const held = buffered.endsWith('\r') ? 1 : 0
      buffered = buffered.slice(0, buffered.length - held).replace(/\r\n?/g, '\n') + (held === 1 ? '\r' : '')
    }
    let start = 0
    for (let end = buffered.indexOf('\n\n'); end !== -1; end = buffered.indexOf('\n\n', start)) {
      const data = dataOf(buffered, start, end)
      if (data !== '') this.#messages.push(data)
      start = end + 2
    }
    this.#text = start === 0 ? buffered : buffered.slice(start)
  }
}

/** The data of the event in `text` from `start` to `end` (its lines joined by newlines, as the SSE format says). */
function dataOf (text: string, start: number, end: number): string {
  // The frame the endpoint writes: one data line.
  if (text.startsWith(DATA_PREFIX, start) && text.indexOf('\n', start) === end) return text.slice(start + DATA_PREFIX.length, end)
  let data: string | undefined
  for (const line of text.slice(start, end).split('\n')) {
    if (!line.startsWith('data')) continue
    let value: string
    if (line.length === 4) value = ''
    else if (line[4] === ':') value = line.slice(line[5] === ' ' ? 6 : 5)
    else continue
    data = data === undefined ? value : data + '\n' + value
  }
  return data ?? ''
}
