/**
 * The answer to one request. It stays a single JSON body unless the handler
 * emits a notification first (progress, a log message); the response then
 * becomes an SSE stream that carries those notifications and, last, the
 * JSON-RPC response. Nothing is written once the response is out or the
 * client has gone.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { sendJson } from '../response/reply.js'
import type { RequestId } from '../protocol/jsonrpc.js'
import { isAtLeast, isLogLevel, type LogLevel } from '../protocol/log-level.js'
import { SseStream } from './sse-writer.js'

export interface RequestStreamOptions {
  /** `params._meta.progressToken` of the request, when it asked for progress. */
  progressToken?: RequestId
  /** The least severe level the client wants; undefined sends no log messages. */
  logLevel?: LogLevel
  /** Whether `notifications/progress` may carry `message` (2025-03-26 and later). */
  progressMessage?: boolean
  /** Output queued for a client that does not read before the stream is dropped (`maxStreamBufferBytes`). */
  maxStreamBufferBytes?: number
}

/** A client that lists neither `text/event-stream` nor a wildcard in `Accept` only gets the final JSON. */
function acceptsEventStream (request: FastifyRequest): boolean {
  const accept = request.headers.accept
  if (accept === undefined || accept === '') return true
  return accept.includes('text/event-stream') || accept.includes('*/*') || accept.includes('text/*')
}

function isFiniteNumber (value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value)
}

export class RequestStream {
  readonly #request: FastifyRequest
  readonly #reply: FastifyReply
  readonly #progressToken: RequestId | undefined
  readonly #logLevel: LogLevel | undefined
  readonly #progressMessage: boolean
  readonly #maxStreamBufferBytes: number | undefined
  #sse: SseStream | undefined
  #done = false
  #lastProgress = -Infinity

  constructor (request: FastifyRequest, reply: FastifyReply, options: RequestStreamOptions = {}) {
    this.#request = request
    this.#reply = reply
    this.#progressToken = options.progressToken
    this.#logLevel = options.logLevel
    this.#progressMessage = options.progressMessage ?? true
    this.#maxStreamBufferBytes = options.maxStreamBufferBytes
  }

  /** True once the response has switched to SSE. */
  get streaming (): boolean {
    return this.#sse !== undefined
  }

  /** Sends `notifications/progress` when the request carried a token; values that do not increase are dropped. */
  progress (progress: number, total?: number, message?: string): void {
    if (this.#progressToken === undefined || !isFiniteNumber(progress) || progress <= this.#lastProgress) return
    const params: Record<string, unknown> = { progressToken: this.#progressToken, progress }
    if (isFiniteNumber(total)) params.total = total
    if (typeof message === 'string' && this.#progressMessage) params.message = message
    if (this.#emit({ jsonrpc: '2.0', method: 'notifications/progress', params })) this.#lastProgress = progress
  }

  /** Sends `notifications/message` when `level` is at or above the level the client asked for. */
  log (level: LogLevel, data: unknown, logger?: string): void {
    if (this.#logLevel === undefined) return
    if (!isLogLevel(level)) {
      // Not `level`: pino writes its own `level` key, and two in one line confuse jq and pino-pretty.
      this.#request.log.warn({ mcpLevel: level }, 'MCP log message with an unknown level dropped')
      return
    }
    if (!isAtLeast(level, this.#logLevel)) return
    const params: Record<string, unknown> = { level, data: data === undefined ? null : data }
    if (typeof logger === 'string') params.logger = logger
    this.#emit({ jsonrpc: '2.0', method: 'notifications/message', params })
  }

  /**
   * Sends a server-to-client JSON-RPC request (legacy era: elicitation,
   * sampling, roots) on the stream; false when it cannot be delivered.
   */
  sendRequest (message: Record<string, unknown>): boolean {
    return this.#emit(message)
  }

  /** Sends the JSON-RPC response: as the HTTP body, or as the last event of the stream. */
  respond (status: number, body: string | Buffer): FastifyReply {
    this.#done = true
    if (this.#sse === undefined) return sendJson(this.#reply, status, body)
    this.#sse.end(typeof body === 'string' ? body : body.toString('utf8'))
    return this.#reply
  }

  /**
   * Ends the response without a JSON-RPC response (its client cancelled the
   * request): a stream already open ends; otherwise an empty stream is sent
   * (204 to a client that takes no stream).
   */
  endWithoutResponse (): FastifyReply {
    this.#done = true
    if (this.#sse !== undefined) this.#sse.end()
    else if (this.#reply.raw.destroyed || this.#reply.sent) return this.#reply
    else if (!acceptsEventStream(this.#request)) return this.#reply.code(204).send()
    else new SseStream(this.#reply, this.#maxStreamBufferBytes).end()
    return this.#reply
  }

  #emit (message: Record<string, unknown>): boolean {
    if (this.#done) return false
    let json: string
    try {
      json = JSON.stringify(message)
    } catch (err) {
      this.#request.log.warn({ err }, 'MCP notification is not JSON data; dropped')
      return false
    }
    if (this.#sse === undefined) {
      if (this.#reply.raw.destroyed || this.#reply.sent || !acceptsEventStream(this.#request)) return false
      this.#sse = new SseStream(this.#reply, this.#maxStreamBufferBytes)
    }
    return this.#sse.send(json)
  }
}
