/**
 * One stdio message through the app's own endpoint, as an HTTP POST that
 * never touches a socket: light-my-request (what `app.inject` uses) hands
 * it to `app.routing`, so the app's hooks, the plugin's Origin/Host guard
 * and authorization, body limit, parser, telemetry, MCP hooks and logging
 * all run exactly as they do for a POST over the network. Calling
 * `app.routing` directly, rather than `app.inject`, gives the transport the
 * raw response before the first byte: cancelling a call closes it, which is
 * what a client disconnecting does over HTTP (`ctx.signal` aborts, a stream
 * is cleaned up).
 *
 * The answer is read as it comes: a JSON body is one message, an SSE body
 * (progress, log messages, the legacy era's questions to the client, a
 * `subscriptions/listen` stream) one message per event. Reading is pulled,
 * so a slow consumer slows the endpoint's stream down (backpressure).
 */
import type { ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { inject as lightMyRequest, Response as InjectResponse } from 'light-my-request'
import type { sseEvents as readSseEvents } from '../client/sse-reader.js'

export type Inject = typeof lightMyRequest

/**
 * Where calls go: the app, the endpoint's path, light-my-request's `inject`
 * and the SSE reader (both loaded by serveStdio, so importing the package
 * loads neither).
 */
export interface EndpointTarget {
  readonly app: FastifyInstance
  readonly path: string
  readonly inject: Inject
  readonly sseEvents: typeof readSseEvents
}

export class EndpointCall {
  #raw: ServerResponse | undefined
  #body: Readable | undefined
  /** Settles the wait for the answer's start when the call is cancelled first. */
  #wake: (() => void) | undefined
  #cancelled = false
  #status = 0
  #headers: Readonly<Record<string, unknown>> = {}

  /** The answer's HTTP status, once it started (0 before). */
  get status (): number {
    return this.#status
  }

  /** The answer's HTTP headers, once it started. */
  get headers (): Readonly<Record<string, unknown>> {
    return this.#headers
  }

  /** True once `cancel` was called: nothing more of this call is delivered. */
  get cancelled (): boolean {
    return this.#cancelled
  }

  /** Closes the response as a disconnecting client would (now, or as soon as the endpoint starts answering). */
  cancel (): void {
    this.#cancelled = true
    if (this.#raw !== undefined && !this.#raw.writableFinished) this.#raw.destroy()
    // A pending read would otherwise wait on a response that never ends, holding nothing that keeps the process alive.
    this.#body?.destroy()
    this.#wake?.()
  }

  /**
   * POSTs `payload` with `headers` (or, without a payload, GETs the
   * endpoint: the legacy standalone stream); yields each JSON-RPC message of
   * the answer, serialised as the endpoint wrote it.
   */
  async * send (target: EndpointTarget, headers: Record<string, string>, payload?: string): AsyncGenerator<string> {
    const { app } = target
    // The callback form, options unchecked (they are ours): no thenable chain, no option validation, no extra tick per call.
    const response = await new Promise<InjectResponse | undefined>((resolve, reject) => {
      let waiting = true
      // A response destroyed before it started may never call back: cancelling ends the wait.
      this.#wake = () => {
        waiting = false
        resolve(undefined)
      }
      target.inject((req, res) => {
        this.#raw = res
        if (this.#cancelled) res.destroy()
        app.routing(req, res)
      }, payload === undefined
        ? { method: 'GET', url: target.path, headers, payloadAsStream: true, validate: false }
        : { method: 'POST', url: target.path, headers, payload, payloadAsStream: true, validate: false },
      (err, answer) => {
        if (!waiting) answer?.stream().destroy()
        else if (err !== undefined && err !== null) reject(err)
        else resolve(answer)
        waiting = false
      })
      if (this.#cancelled) this.#wake()
    })
    this.#wake = undefined
    if (response === undefined) return
    this.#status = response.statusCode
    this.#headers = response.headers
    const body = this.#body = response.stream()
    try {
      if (this.#cancelled) return
      const type = String(response.headers['content-type'] ?? '')
      if (type.startsWith('text/event-stream')) {
        for await (const event of target.sseEvents(Readable.toWeb(body) as ReadableStream<Uint8Array>)) {
          if (this.#cancelled) return
          if (event.data !== '') yield event.data
        }
        return
      }
      const text = (await readAll(body)).trim()
      if (text !== '' && !this.#cancelled) yield text
    } catch (err) {
      // The body was destroyed by `cancel`: the call ends quietly.
      if (!this.#cancelled) throw err
    } finally {
      if (!body.destroyed) body.destroy()
    }
  }
}

/** A whole (JSON) body: read with events, which costs less per answer than an async iterator. */
function readAll (body: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    body.on('data', (chunk: Buffer) => chunks.push(chunk))
    body.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8')))
    body.once('error', reject)
    // Destroyed without an error (cancelled): no more will come.
    body.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
  })
}
