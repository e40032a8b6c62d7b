/**
 * The answer to one stdio line as the `http.ServerResponse` Fastify's
 * `app.routing` writes to: headers and status (`setHeader`, `writeHead`,
 * `headersSent`, ...), and a body written as on a socket, which goes
 * straight to the transport (a `ResponseSink`) instead of being copied
 * into a readable stream for it.
 *
 * It is a real `Writable`, so the stream semantics the endpoint relies on
 * hold as for a socket: `write` returns false and `writableNeedDrain` is set
 * once `writableLength` reaches the high-water mark, 'drain' follows when the
 * sink has taken what was queued, 'finish' then 'close' end an answer, and
 * `destroy()` (a cancelled call) emits 'close' unfinished, which aborts the
 * handler's `ctx.signal` and ends a stream (lib/streams/sse-writer.ts). The
 * sink takes one chunk at a time and says when it can take the next: a host
 * that reads stdout slowly holds the endpoint's stream back.
 */
import type { OutgoingHttpHeader, OutgoingHttpHeaders } from 'node:http'
import { Writable } from 'node:stream'
import type { LineRequest } from './line-request.js'

/** Where an answer goes as it is written. */
export interface ResponseSink {
  /** The status line and headers are out (`writeHead`, or the first write). */
  started: (status: number, headers: Readonly<OutgoingHttpHeaders>) => void
  /** A piece of the body; `next` is called once the sink can take the next one. */
  chunk: (chunk: string | Buffer, next: () => void) => void
  /** The body is complete (`end`). */
  ended: () => void
  /** The response closed: after `ended`, or without it (destroyed: cancelled, or dropped by the endpoint). */
  closed: () => void
}

function headersSentError (): Error {
  return Object.assign(new Error('Cannot set headers after they are sent to the client'), { code: 'ERR_HTTP_HEADERS_SENT' })
}

export class LineResponse extends Writable {
  statusCode = 200
  statusMessage = ''
  /** No Date header over stdio: nothing reads it. */
  sendDate = false
  headersSent = false
  readonly req: LineRequest
  readonly #sink: ResponseSink
  /** Lower-case names, as Node's `getHeaders()` gives them. */
  #headers: OutgoingHttpHeaders = {}

  constructor (req: LineRequest, sink: ResponseSink) {
    // Strings stay strings: the sink reads text, and counting string length is what the endpoint's buffer cap expects.
    super({ decodeStrings: false })
    this.req = req
    this.#sink = sink
  }

  get socket (): LineRequest['socket'] {
    return this.req.socket
  }

  get connection (): LineRequest['socket'] {
    return this.req.socket
  }

  setHeader (name: string, value: OutgoingHttpHeader): this {
    if (this.headersSent) throw headersSentError()
    this.#headers[name.toLowerCase()] = value
    return this
  }

  getHeader (name: string): OutgoingHttpHeader | undefined {
    return this.#headers[name.toLowerCase()]
  }

  getHeaders (): OutgoingHttpHeaders {
    return { ...this.#headers }
  }

  getHeaderNames (): string[] {
    return Object.keys(this.#headers)
  }

  hasHeader (name: string): boolean {
    return this.#headers[name.toLowerCase()] !== undefined
  }

  removeHeader (name: string): void {
    if (this.headersSent) throw headersSentError()
    delete this.#headers[name.toLowerCase()]
  }

  /** Status and headers (merged over those set before), as `http.ServerResponse#writeHead` takes them. */
  writeHead (status: number, reason?: string | OutgoingHttpHeaders, headers?: OutgoingHttpHeaders): this {
    if (this.headersSent) throw headersSentError()
    const extra = typeof reason === 'string' ? headers : reason
    if (typeof reason === 'string') this.statusMessage = reason
    this.statusCode = status
    if (extra !== undefined) {
      for (const name of Object.keys(extra)) {
        const value = extra[name]
        if (value !== undefined) this.#headers[name.toLowerCase()] = value
      }
    }
    this.headersSent = true
    this.#sink.started(status, this.#headers)
    return this
  }

  flushHeaders (): void {
    if (!this.headersSent) this.writeHead(this.statusCode)
  }

  /** Nothing to time out: the transport bounds a call's life itself. */
  setTimeout (_ms: number, _callback?: () => void): this {
    return this
  }

  /** Informational responses have no meaning over stdio. */
  writeEarlyHints (_hints: Record<string, string | string[]>, callback?: () => void): void {
    callback?.()
  }

  /** No trailers over stdio. */
  addTrailers (_headers: OutgoingHttpHeaders): void {}

  override _write (chunk: string | Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (!this.headersSent) this.writeHead(this.statusCode)
    this.#sink.chunk(chunk, callback)
  }

  override _final (callback: (error?: Error | null) => void): void {
    if (!this.headersSent) this.writeHead(this.statusCode)
    this.#sink.ended()
    callback()
  }

  override _destroy (_error: Error | null, callback: (error?: Error | null) => void): void {
    this.#sink.closed()
    // Fastify destroys a response with the error it already handled (logged, hooks run); as on a socket, no 'error' follows,
    // which with no listener would end the process.
    callback()
  }
}
