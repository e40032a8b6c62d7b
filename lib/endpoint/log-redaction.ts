/**
 * Credentials never reach the logs through the endpoint's routes: their
 * request loggers descend from one child of the app's logger that redacts
 * the `authorization` header, and an `access_token` query parameter in the
 * request's URL (MCP refuses tokens there, but Fastify logs the URL of
 * every request, refused or not), wherever a request serializer or a log
 * call puts them. The redaction is compiled once, at registration; each
 * request's logger is an ordinary child of it (made by the app's own child
 * logger factory, so custom factories keep working). An app that does not
 * log keeps Fastify's default (no logger per request).
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'

type ChildLoggerFactory = FastifyInstance['childLoggerFactory']

const CENSOR = '[redacted]'

const HEADER_PATHS = [
  'req.headers.authorization',
  'request.headers.authorization',
  'headers.authorization',
  'authorization',
  'req.headers["proxy-authorization"]',
  'headers["proxy-authorization"]'
]

/** Where Fastify's request serializer and typical log calls put the URL. */
const URL_PATHS = ['req.url', 'request.url', 'url', 'req.originalUrl', 'request.originalUrl', 'originalUrl']

export const REDACTED_PATHS = Object.freeze([...HEADER_PATHS, ...URL_PATHS])

/** `access_token=` (its `_` percent-encoded or not, any case) in a query string, up to the next parameter. */
const ACCESS_TOKEN_PARAM = /([?&])(access(?:_|%5f)token)=[^&#]*/gi

/** The URL with the value of every `access_token` query parameter replaced. */
export function redactUrl (url: string): string {
  return url.includes('?') ? url.replace(ACCESS_TOKEN_PARAM, '$1$2=' + CENSOR) : url
}

/** pino calls this for each redacted path present: URLs keep everything but the token, the rest is censored whole. */
function censor (value: unknown, path: string[]): unknown {
  const key = path[path.length - 1]
  if (key === 'url' || key === 'originalUrl') return typeof value === 'string' ? redactUrl(value) : value
  return CENSOR
}

/** The factory for the endpoint's routes; undefined when the app does not log (Fastify then makes no request loggers at all). */
export function redactingLoggerFactory (fastify: FastifyInstance): ChildLoggerFactory | undefined {
  // Fastify's null logger is its own child: keep Fastify's fast path that skips per-request loggers.
  if (fastify.log.child({}) === fastify.log) return undefined
  const parentFactory = fastify.childLoggerFactory
  // pino takes `redact` in child options; other loggers ignore it.
  const base = (fastify.log.child as (bindings: object, options: object) => FastifyBaseLogger)({}, { redact: { paths: [...REDACTED_PATHS], censor } })
  const factory: ChildLoggerFactory = function redactingChildLogger (this: FastifyInstance, _logger, bindings, options, rawRequest) {
    return parentFactory.call(this, base, bindings, options, rawRequest)
  }
  return factory
}
