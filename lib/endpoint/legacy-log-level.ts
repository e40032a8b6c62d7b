/**
 * The log level of legacy requests, per caller. A stateless legacy endpoint
 * has no session to keep a `logging/setLevel` in, so the level belongs to
 * whoever set it: the caller (lib/handler/caller.ts `callerOf`: the
 * authenticated principal, else a digest of the `Authorization` header).
 * Set here at once, and on the other instances through the event bus
 * (`{ type: 'logLevel', caller, level }`). A caller that set no level gets
 * no log messages. Modern requests carry their level in `_meta` and never
 * read this.
 */
import type { FastifyRequest } from 'fastify'
import type { LogLevel } from '../protocol/log-level.js'
import type { McpEvent } from '../parts/event-bus.js'
import { callerOf } from '../handler/caller.js'
import { CallerLogLevels } from './caller-log-levels.js'
import { sessionOf } from './legacy-sessions.js'

/** With sessions: a request that named a session keeps its level there (lib/endpoint/legacy-sessions.ts). */
export interface SessionLevels {
  setLevel (request: FastifyRequest, level: LogLevel): Promise<boolean>
}

export class LegacyLogLevel {
  readonly #publish: (event: McpEvent) => Promise<unknown>
  readonly levels: CallerLogLevels
  readonly #sessions: SessionLevels | undefined

  /** `publish` tells every instance (the event bus). */
  constructor (publish: (event: McpEvent) => Promise<unknown>, levels = new CallerLogLevels(), sessions?: SessionLevels) {
    this.#publish = publish
    this.levels = levels
    this.#sessions = sessions
  }

  /** The level for a legacy request (undefined: send no log messages). Nobody set one yet: no need to know who calls. */
  levelFor (request: FastifyRequest): LogLevel | undefined {
    if (this.#sessions !== undefined) {
      const session = sessionOf(request)
      if (session !== undefined) return session.record.level
    }
    return this.levels.size > 0 ? this.levels.get(callerOf(request)) : undefined
  }

  /** A successful `logging/setLevel`: applies to this caller here, and rejects when the other instances could not be told. */
  async set (request: FastifyRequest, level: LogLevel): Promise<void> {
    if (this.#sessions !== undefined && await this.#sessions.setLevel(request, level)) return
    const caller = callerOf(request)
    this.levels.set(caller, level)
    await this.#publish({ type: 'logLevel', caller, level })
  }

  /** A level set on any instance (delivered by the event bus, this one's included). */
  heard (event: Extract<McpEvent, { type: 'logLevel' }>): void {
    this.levels.set(event.caller, event.level)
  }
}
