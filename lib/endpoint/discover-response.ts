/**
 * The `server/discover` result (modern era): supported versions, modern
 * capabilities, instructions, cache hints and `_meta.serverInfo`. Built and
 * serialised once at registration unless a hint is a function of the request.
 */
import type { FastifyRequest } from 'fastify'
import { isStatic, resolveHints } from '../response/cache-hints.js'
import type { EndpointState } from './state.js'
import type { RequestId } from '../protocol/jsonrpc.js'
import { type PreparedResult, prepareResult, preparedResponse } from '../response/responses.js'
import type { DiscoverResult } from '../protocol/schemas.js'
import { MODERN_VERSIONS } from '../protocol/versions.js'
import { SERVER_INFO_META } from '../protocol/meta.js'
import { BoundedMemo } from '../common/bounded-memo.js'

/** Distinct (ttlMs, cacheScope) pairs whose discover result is kept prepared. */
const MAX_PREPARED_HINT_PAIRS = 64

export type DiscoverResponder = (id: RequestId, request: FastifyRequest) => Buffer

export function createDiscoverResponder (state: EndpointState): DiscoverResponder {
  const { options } = state
  const meta = Object.freeze({ [SERVER_INFO_META]: options.serverInfo })

  function build (ttlMs: number, cacheScope: DiscoverResult['cacheScope']): PreparedResult {
    // Field order is wire order: instructions (when set) before the hints.
    const result: DiscoverResult = {
      resultType: 'complete',
      supportedVersions: [...MODERN_VERSIONS],
      capabilities: state.capabilities.modern,
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      ttlMs,
      cacheScope,
      _meta: meta
    }
    return prepareResult(result)
  }

  const hints = options.cacheHints.discover
  if (isStatic(hints)) {
    const prepared = build(hints.ttlMs, hints.cacheScope)
    return (id) => preparedResponse(id, prepared)
  }
  // Hints computed per request take few distinct values: each pair is prepared once (a bounded memo).
  const preparedByHints = new BoundedMemo<string, PreparedResult>(MAX_PREPARED_HINT_PAIRS, 'oldest')
  return (id, request) => {
    const { ttlMs, cacheScope } = resolveHints(hints, request)
    const key = `${ttlMs} ${cacheScope}`
    let prepared = preparedByHints.get(key)
    if (prepared === undefined) {
      prepared = build(ttlMs, cacheScope)
      preparedByHints.set(key, prepared)
    }
    return preparedResponse(id, prepared)
  }
}
