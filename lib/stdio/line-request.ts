/**
 * One stdio line as the HTTP request Fastify's `app.routing` expects: the
 * members of `http.IncomingMessage` that Fastify's routing, request, reply
 * and content-type parser and the plugin read, and the line as its body
 * stream. Built per line at a fraction of the cost of light-my-request's
 * request (no URL parsing, no option handling, no header normalisation: the
 * transport's own headers are lower case already).
 *
 * What the app sees over stdio (docs/stdio.md): `request.ip` is `127.0.0.1`
 * and `request.protocol` is `http` (the local peer, no TLS), `request.host`
 * is `localhost:80`, as `app.inject` gives them.
 */
import { EventEmitter } from 'node:events'
import { Readable } from 'node:stream'

/** The address a stdio message arrives from: the local user's process. */
export const STDIO_REMOTE_ADDRESS = '127.0.0.1'
/** The Host a stdio message carries: a loopback name, which the endpoint's DNS-rebinding guard accepts on a loopback peer. */
export const STDIO_HOST = 'localhost:80'

/**
 * The connection a stdio message comes over: a loopback peer without TLS.
 * Fastify hangs per-connection state on it (`_meta` for `onTimeout`, the
 * token memo of lib/auth/resource-server.ts), so one is shared by a stdio
 * connection's messages, as a keep-alive socket is by an HTTP client's.
 */
export class LineSocket extends EventEmitter {
  readonly remoteAddress = STDIO_REMOTE_ADDRESS
  readonly remotePort = 0
  readonly encrypted = undefined
  destroyed = false
}

export class LineRequest extends Readable {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly httpVersion = '1.1'
  readonly httpVersionMajor = 1
  readonly httpVersionMinor = 1
  readonly socket: LineSocket
  /** True once the caller went away before the answer ended (a cancelled call), as for an HTTP client that disconnects. */
  aborted = false
  #body: Buffer | undefined
  #rawHeaders: string[] | undefined

  /**
   * `headers` are the transport's (lower case, shared between messages):
   * the request gets its own copy, which hooks may change.
   */
  constructor (socket: LineSocket, method: string, url: string, headers: Readonly<Record<string, string>>, body?: string) {
    // Not destroyed once read: like light-my-request's, the request emits 'close' only when the call is cancelled.
    super({ autoDestroy: false })
    this.socket = socket
    this.method = method
    this.url = url
    if (body === undefined) {
      this.headers = { ...headers, host: STDIO_HOST }
    } else {
      const bytes = this.#body = Buffer.from(body, 'utf8')
      this.headers = { ...headers, host: STDIO_HOST, 'content-length': String(bytes.length) }
    }
  }

  /** Node's alias of `socket`. */
  get connection (): LineSocket {
    return this.socket
  }

  /**
   * The headers as name/value pairs, as Node keeps them next to `headers`:
   * made on first read and kept, since Node's list too is what arrived, not
   * what a hook later set on `headers`.
   */
  get rawHeaders (): string[] {
    return (this.#rawHeaders ??= Object.entries(this.headers).flat())
  }

  override _read (): void {
    const body = this.#body
    this.#body = undefined
    if (body !== undefined) this.push(body)
    this.push(null)
  }

  /** The caller went away: `aborted` is set and 'close' is emitted, as for an HTTP request whose client disconnected. */
  abort (): void {
    if (this.aborted) return
    this.aborted = true
    this.destroy()
  }
}
