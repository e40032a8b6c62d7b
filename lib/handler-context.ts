/**
 * The `ctx` a handler receives. Built per request, kept cheap: the abort
 * signal is only wired to the socket when a handler asks for it.
 */
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'
import { ErrorCode, McpError } from './mcp-error.js'
import type { Era } from './methods.js'
import type { ClientInfo, HandlerContext, JsonObject } from './server-module.js'

export class RequestContext implements HandlerContext {
  readonly request: FastifyRequest
  readonly era: Era
  readonly protocolVersion: string
  readonly method: string
  readonly clientInfo: ClientInfo | null
  readonly clientCapabilities: JsonObject
  readonly #reply: FastifyReply
  #controller: AbortController | undefined

  constructor (
    request: FastifyRequest,
    reply: FastifyReply,
    era: Era,
    protocolVersion: string,
    method: string,
    clientInfo: ClientInfo | null,
    clientCapabilities: JsonObject
  ) {
    this.request = request
    this.#reply = reply
    this.era = era
    this.protocolVersion = protocolVersion
    this.method = method
    this.clientInfo = clientInfo
    this.clientCapabilities = clientCapabilities
  }

  get logger (): FastifyBaseLogger {
    return this.request.log
  }

  get signal (): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController()
      this.#controller = controller
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

  requireClientCapabilities (...names: string[]): void {
    const missing = names.filter((name) => {
      const declared = this.clientCapabilities[name]
      return declared === null || typeof declared !== 'object'
    })
    if (missing.length === 0) return
    const list = missing.join(', ')
    if (this.era === 'legacy') {
      // A stateless legacy request carries no client capabilities to check.
      throw new McpError(ErrorCode.InvalidRequest, `This request needs client capabilities (${list}) that a stateless legacy request cannot declare`)
    }
    throw new McpError(
      ErrorCode.MissingRequiredClientCapability,
      `Missing required client capabilities: ${list}`,
      { requiredCapabilities: Object.fromEntries(missing.map((name) => [name, {}])) }
    )
  }
}
