/**
 * A Server-Sent Events response written on the raw Node response. Used where
 * the endpoint streams: a request whose handler emitted notifications, and a
 * `subscriptions/listen` stream. Fastify lets go of the reply (`hijack()`);
 * headers already set on it (CORS and the like) are carried over.
 *
 * A client that does not read must not cost the server without end (issue
 * 11: ~3 MB of heap per stuck stream). Output queued for it is measured in
 * bytes (the socket's `writableLength` plus frames held here) and the stream
 * is dropped once that passes `maxStreamBufferBytes`. While the socket is
 * backed up, frames wait here in one list and go out as one write on
 * `drain`: the socket's own queue would hold several objects per small frame.
 */
import type { ServerResponse } from 'node:http'
import type { FastifyReply } from 'fastify'

/** A client that has not read this much queued output is dropped, not buffered without end (the `maxStreamBufferBytes` default). */
export const DEFAULT_MAX_STREAM_BUFFER_BYTES = 256 * 1024

const SSE_HEADERS = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  // nginx and similar proxies would otherwise hold events back
  'x-accel-buffering': 'no'
})

const KEEP_ALIVE = ': keep-alive\n\n'

/** One SSE event per JSON-RPC message; `JSON.stringify` output has no raw newline, so one data line suffices. */
export function sseFrame (json: string): string {
  return 'data: ' + json + '\n\n'
}

/** An SSE event with an id (the client sends the last one back as `Last-Event-ID` when it reconnects); `id` holds no newline. */
export function sseFrameWithId (id: string, json: string): string {
  return 'id: ' + id + '\ndata: ' + json + '\n\n'
}

export class SseStream {
  readonly #raw: ServerResponse
  readonly #maxStreamBufferBytes: number
  /** Frames waiting for the socket to drain, and their length. */
  #held: string[] = []
  #heldBytes = 0

  /** Takes the response over from Fastify and sends the status line and headers. */
  constructor (reply: FastifyReply, maxStreamBufferBytes = DEFAULT_MAX_STREAM_BUFFER_BYTES) {
    this.#maxStreamBufferBytes = maxStreamBufferBytes
    const carried = reply.getHeaders()
    reply.hijack()
    const raw = reply.raw
    for (const [name, value] of Object.entries(carried)) {
      if (value !== undefined && name !== 'content-length' && name !== 'content-type') raw.setHeader(name, value)
    }
    raw.writeHead(200, SSE_HEADERS)
    this.#raw = raw
  }

  /** False once the response is ended or the connection is gone. */
  get open (): boolean {
    return !this.#raw.writableEnded && !this.#raw.destroyed
  }

  /** Writes one JSON-RPC message as an event; false when it could not be written. */
  send (json: string): boolean {
    return this.#write(sseFrame(json))
  }

  /** Writes one JSON-RPC message as an event with an id (`json` empty: the 2025-11-25 priming event, which carries only the id). */
  sendWithId (id: string, json: string): boolean {
    return this.#write(sseFrameWithId(id, json))
  }

  /** Sends the status line and headers now, before any event (Node holds them until the first write otherwise). */
  flushHeaders (): void {
    if (this.open) this.#raw.flushHeaders()
  }

  /** Writes a comment line, which clients ignore: keeps idle connections alive through proxies. */
  comment (): boolean {
    return this.#write(KEEP_ALIVE)
  }

  /** Ends the stream, after a last message if given. Safe to call more than once. */
  end (json?: string): void {
    if (!this.open) return
    this.#flush()
    if (json === undefined) this.#raw.end()
    else this.#raw.end(sseFrame(json))
  }

  /** Drops the connection without a final message. */
  destroy (): void {
    this.#raw.destroy()
  }

  /** Calls `listener` once when the connection closes, whoever closed it. */
  onClose (listener: () => void): void {
    if (this.#raw.destroyed) queueMicrotask(listener)
    else this.#raw.once('close', listener)
  }

  #write (chunk: string): boolean {
    if (!this.open) return false
    const raw = this.#raw
    // String lengths, as Node counts writableLength: UTF-16 units, close to bytes for JSON text.
    if (raw.writableLength + this.#heldBytes + chunk.length > this.#maxStreamBufferBytes) {
      this.#held = []
      this.#heldBytes = 0
      raw.destroy()
      return false
    }
    if (this.#held.length > 0 || raw.writableNeedDrain) {
      if (this.#held.length === 0) raw.once('drain', () => this.#flush())
      this.#held.push(chunk)
      this.#heldBytes += chunk.length
      return true
    }
    raw.write(chunk)
    return true
  }

  /** Writes the held frames as one chunk. */
  #flush (): void {
    if (this.#held.length === 0 || !this.open) return
    const text = this.#held.length === 1 ? this.#held[0] as string : this.#held.join('')
    this.#held = []
    this.#heldBytes = 0
    this.#raw.write(text)
  }
}
