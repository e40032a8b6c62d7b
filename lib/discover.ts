/**
 * The `server/discover` result (modern era): supported versions, modern
 * capabilities, instructions, cache hints and `_meta.serverInfo`. Built and
 * serialised once at registration unless a hint is a function of the request.
 */
import type { FastifyRequest } from 'fastify'
import { isStatic, resolveHints } from './cache-hints.js'
import type { EndpointState } from './endpoint-state.js'
import type { RequestId } from './jsonrpc.js'
import { type PreparedResult, prepareResult, preparedResponse } from './responses.js'
import { DiscoverResult } from './schemas.js'
import { MODERN_VERSIONS } from './versions.js'

export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo'

export type DiscoverResponder = (id: RequestId, request: FastifyRequest) => string

export function createDiscoverResponder (state: EndpointState): DiscoverResponder {
  const { options } = state
  const meta = Object.freeze({ [SERVER_INFO_META]: options.serverInfo })

  function build (ttlMs: number, cacheScope: string): PreparedResult {
    const result: Record<string, unknown> = {
      resultType: 'complete',
      supportedVersions: [...MODERN_VERSIONS],
      capabilities: state.capabilities.modern
    }
    if (options.instructions !== undefined) result.instructions = options.instructions
    result.ttlMs = ttlMs
    result.cacheScope = cacheScope
    result._meta = meta
    return prepareResult(DiscoverResult, result)
  }

  const hints = options.discover
  if (isStatic(hints)) {
    const prepared = build(hints.ttlMs, hints.cacheScope)
    return (id) => preparedResponse(id, prepared)
  }
  return (id, request) => {
    const { ttlMs, cacheScope } = resolveHints(hints, request)
    return preparedResponse(id, build(ttlMs, cacheScope))
  }
}
