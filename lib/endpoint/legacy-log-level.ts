/**
 * The log level of legacy requests. A stateless legacy deployment has no
 * session to keep a `logging/setLevel` in, so the level of the last
 * successful call applies to every later legacy request the deployment
 * serves: set here at once, and on the other instances through the event bus
 * (`{ type: 'logLevel' }`). Before any `logging/setLevel`, no log messages
 * are sent. Modern requests carry their level in `_meta` and never read this.
 *
 * Every read and write names the request, so the level can be kept per
 * caller without touching its users.
 */
import type { FastifyRequest } from 'fastify'
import type { LogLevel } from '../protocol/log-level.js'
import type { McpEvent } from '../parts/event-bus.js'

export class LegacyLogLevel {
  readonly #publish: (event: McpEvent) => Promise<void>
  #level: LogLevel | undefined

  /** `publish` tells every instance (the event bus). */
  constructor (publish: (event: McpEvent) => Promise<void>) {
    this.#publish = publish
  }

  /** The level for a legacy request (undefined: send no log messages). */
  levelFor (_request: FastifyRequest): LogLevel | undefined {
    return this.#level
  }

  /** A successful `logging/setLevel`: applies here, and rejects when the other instances could not be told. */
  set (_request: FastifyRequest, level: LogLevel): Promise<void> {
    this.#level = level
    return this.#publish({ type: 'logLevel', level })
  }

  /** A level set on any instance (delivered by the event bus, this one's included). */
  heard (event: Extract<McpEvent, { type: 'logLevel' }>): void {
    this.#level = event.level
  }
}
