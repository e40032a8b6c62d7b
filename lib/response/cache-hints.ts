/**
 * Cache hints (`ttlMs`, `cacheScope`) of modern results: configured values,
 * per-request functions, and per-result overrides from handlers.
 */
import type { FastifyRequest } from 'fastify'
import type { CacheScope } from '../protocol/schemas.js'

/** A value, or a function of the request giving it. */
type PerRequest<T> = T | ((request: FastifyRequest) => T)

/** The configured hints (`cacheHints.results`, checked at registration). */
export interface ResolvedCacheHints {
  readonly ttlMs?: PerRequest<number> | undefined
  readonly cacheScope?: PerRequest<CacheScope> | undefined
}

export interface CacheHints {
  ttlMs: number
  cacheScope: CacheScope
}

export function isStatic (hints: ResolvedCacheHints): hints is { ttlMs: number, cacheScope: CacheScope } {
  return typeof hints.ttlMs !== 'function' && typeof hints.cacheScope !== 'function'
}

export function isValidTtl (value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

export function isValidScope (value: unknown): value is CacheScope {
  return value === 'public' || value === 'private'
}

function evaluate<T> (value: PerRequest<T> | undefined, request: FastifyRequest): T | undefined {
  return typeof value === 'function' ? (value as (r: FastifyRequest) => T)(request) : value
}

/**
 * The hints for one request. A function that throws or returns a bad value
 * falls back to the conservative defaults (never cache, never share), and
 * the mistake is logged: a hint must not turn a good answer into an error.
 */
export function resolveHints (hints: ResolvedCacheHints, request: FastifyRequest): CacheHints {
  let ttlMs: unknown
  let cacheScope: unknown
  try {
    ttlMs = evaluate(hints.ttlMs, request)
    cacheScope = evaluate(hints.cacheScope, request)
  } catch (err) {
    request.log.error({ err }, 'MCP cache hint function failed; answering ttlMs 0, private')
    return { ttlMs: 0, cacheScope: 'private' }
  }
  if (!isValidTtl(ttlMs)) {
    request.log.warn({ ttlMs }, 'MCP cache hint ttlMs is not a non-negative integer; answering 0')
    ttlMs = 0
  }
  if (!isValidScope(cacheScope)) {
    request.log.warn({ cacheScope }, 'MCP cache hint cacheScope is not "public" or "private"; answering private')
    cacheScope = 'private'
  }
  return { ttlMs: ttlMs as number, cacheScope: cacheScope as CacheScope }
}
