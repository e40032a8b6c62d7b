/**
 * The standalone stream of a legacy stdio connection. Over Streamable HTTP
 * a legacy client hears `notifications/{tools,prompts,resources}/list_changed`
 * and its session's `notifications/resources/updated` on the stream it
 * opens with `GET` on the endpoint (lib/endpoint/standalone-stream.ts).
 * Over stdio the one channel carries them: once `initialize` is answered the
 * connection opens that same GET through the app's own routing, with the
 * negotiated version and, when the endpoint issued one, the
 * `Mcp-Session-Id`, and writes each notification as the endpoint wrote it.
 * So the lists it hears are those the legacy capabilities advertise with
 * `listChanged: true`, and its subscriptions are the session's, whatever
 * era the deployment serves.
 */
import type { FastifyBaseLogger } from 'fastify'
import { EndpointCall, type EndpointTarget } from './endpoint-call.js'
import type { MessageWriter } from './message-writer.js'

export class LegacyStream {
  readonly #target: EndpointTarget
  readonly #writer: MessageWriter
  readonly #log: FastifyBaseLogger
  #call: EndpointCall | undefined

  constructor (target: EndpointTarget, writer: MessageWriter, log: FastifyBaseLogger) {
    this.#target = target
    this.#writer = writer
    this.#log = log
  }

  /** Opens the stream once, with the connection's headers; resolves when it ends (the app closed, or `stop`). */
  start (headers: Record<string, string>): Promise<void> | undefined {
    if (this.#call !== undefined) return undefined
    const call = this.#call = new EndpointCall()
    return this.#forward(call, headers).catch((err: unknown) => {
      this.#log.warn({ err }, 'MCP stdio: the standalone stream of a legacy connection ended')
    })
  }

  stop (): void {
    this.#call?.cancel()
  }

  /** Closes the stream open now and opens it again with `headers` (another session's); resolves as `start`. */
  restart (headers: Record<string, string>): Promise<void> | undefined {
    this.stop()
    this.#call = undefined
    return this.start(headers)
  }

  async #forward (call: EndpointCall, headers: Record<string, string>): Promise<void> {
    const { 'content-type': _none, ...get } = headers
    for await (const json of call.send(this.#target, 'GET', get)) {
      // Only notifications travel on the stream; a refusal to open it (its JSON-RPC error) is not the client's to read.
      if (call.status === 200) await this.#writer.send(json)
      else this.#log.warn({ status: call.status, body: json.slice(0, 200) }, 'MCP stdio: the endpoint did not open the standalone stream of a legacy connection; it hears no list changes')
    }
  }
}
