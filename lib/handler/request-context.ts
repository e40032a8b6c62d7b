/**
 * The `ctx` a handler receives. Built per request, kept cheap: the abort
 * signal is only wired to the socket when a handler asks for it.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import type { ClientRequestMethod, ClientRequestOptions } from '../protocol/client-request-wire.js'
import { ClientAsking } from '../input/client-asking.js'
import { type ClientRequests, unavailable } from '../input/client-requests.js'
import type { LogLevel } from '../protocol/log-level.js'
import type { Era } from '../protocol/methods.js'
import type { RequestStream } from '../streams/request-stream.js'
import type { ClientInfo, HandlerContext, JsonObject } from '../server-module/contract.js'
import type { AuthInfo } from '../server-module/auth-info.js'
import { authInfoOf } from '../auth/request-token.js'

export class RequestContext extends ClientAsking implements HandlerContext {
  readonly request: FastifyRequest
  readonly era: Era
  readonly protocolVersion: string
  readonly method: string
  readonly clientInfo: ClientInfo | null
  readonly clientCapabilities: JsonObject
  readonly #reply: FastifyReply
  readonly #stream: RequestStream | undefined
  readonly #clientRequests: ClientRequests | undefined
  #controller: AbortController | undefined
  /** Set when the endpoint stopped this handler (timeout, close) before its signal was read. */
  #stopped: Error | undefined

  constructor (
    request: FastifyRequest,
    reply: FastifyReply,
    era: Era,
    protocolVersion: string,
    method: string,
    clientInfo: ClientInfo | null,
    clientCapabilities: JsonObject,
    stream?: RequestStream,
    clientRequests?: ClientRequests
  ) {
    super()
    this.request = request
    this.#reply = reply
    this.era = era
    this.protocolVersion = protocolVersion
    this.method = method
    this.clientInfo = clientInfo
    this.clientCapabilities = clientCapabilities
    this.#stream = stream
    this.#clientRequests = clientRequests
  }

  get logger (): FastifyBaseLogger {
    return this.request.log
  }

  get auth (): AuthInfo | undefined {
    return authInfoOf(this.request)
  }

  /** Aborts `signal`: the endpoint gave up on this handler (it timed out, or the server is closing). */
  abort (reason: Error): void {
    this.#stopped = reason
    this.#controller?.abort(reason)
  }

  get signal (): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController()
      this.#controller = controller
      if (this.#stopped !== undefined) {
        controller.abort(this.#stopped)
        return controller.signal
      }
      const raw = this.#reply.raw
      if (raw.writableFinished || raw.destroyed) {
        if (!raw.writableFinished) controller.abort()
      } else {
        // The client closing the connection before the answer is written cancels the request.
        raw.once('close', () => {
          if (!raw.writableFinished) controller.abort(new Error('client disconnected'))
        })
      }
    }
    return this.#controller.signal
  }

  progress (progress: number, total?: number, message?: string): void {
    this.#stream?.progress(progress, total, message)
  }

  log (level: LogLevel, data: unknown, logger?: string): void {
    this.#stream?.log(level, data, logger)
  }

  get requestState (): string | undefined {
    return this.#clientRequests?.requestState
  }

  protected ask (method: ClientRequestMethod, params: JsonObject, options: ClientRequestOptions | undefined): Promise<JsonObject> {
    if (this.#clientRequests === undefined) return unavailable(this.method, this.era)
    return this.#clientRequests.send(method, params, options)
  }
}
