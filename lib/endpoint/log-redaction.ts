/**
 * Credentials never reach the logs through the endpoint's routes: their
 * request loggers descend from one child of the app's logger that redacts
 * the `authorization` header wherever a request serializer or a log call
 * puts it. The redaction is compiled once, at registration; each request's
 * logger is an ordinary child of it (made by the app's own child logger
 * factory, so custom factories keep working). An app that does not log
 * keeps Fastify's default (no logger per request).
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

type ChildLoggerFactory = FastifyInstance['childLoggerFactory']

export const REDACTED_PATHS = Object.freeze([
  'req.headers.authorization',
  'request.headers.authorization',
  'headers.authorization',
  'authorization',
  'req.headers["proxy-authorization"]',
  'headers["proxy-authorization"]'
])

/** The factory for the endpoint's routes; undefined when the app does not log (Fastify then makes no request loggers at all). */
export function redactingLoggerFactory (fastify: FastifyInstance): ChildLoggerFactory | undefined {
  // Fastify's null logger is its own child: keep Fastify's fast path that skips per-request loggers.
  if (fastify.log.child({}) === fastify.log) return undefined
  const parentFactory = fastify.childLoggerFactory
  // pino takes `redact` in child options; other loggers ignore it.
  const base = (fastify.log.child as (bindings: object, options: object) => FastifyBaseLogger)({}, { redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' } })
  const factory: ChildLoggerFactory = function redactingChildLogger (this: FastifyInstance, _logger, bindings, options, rawRequest) {
    return parentFactory.call(this, base, bindings, options, rawRequest)
  }
  return factory
}
