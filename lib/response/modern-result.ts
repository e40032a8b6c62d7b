/**
 * Modern results as written: every result is stamped with `resultType`,
 * `_meta.serverInfo` and, for list and read results, cache hints (the
 * configured ones, unless the handler set valid ones). A catalogue's list
 * keeps its preset bytes (copied behind the id, never serialised whole), an
 * immutable result whose stamp never varies is prepared once, and the rest
 * gets its stamp spliced in as text where it can.
 */
import type { FastifyRequest } from 'fastify'
import { isJsonObject, type JsonObject, type RequestId } from '../protocol/jsonrpc.js'
import { ErrorCode } from '../protocol/mcp-error.js'
import { SERVER_INFO_META } from '../protocol/meta.js'
import type { Implementation as ServerInfo, ResultMeta } from '../protocol/schemas.js'
import { type CacheHints, isStatic, isValidScope, isValidTtl, resolveHints, type ResolvedCacheHints } from './cache-hints.js'
import { isImmutableData, jsonBytesOf, jsonOf, memoizeImmutable } from './frozen-json.js'
import { appendFields, errorResponse, internalErrorResponse, objectJson, partsResponse, type PreparedResult, prepareJson, prepareResult, preparedResponse, resultJsonResponse, resultParts } from './responses.js'

/** HTTP status of a modern JSON-RPC error (the transport fixes these; others ride on 200). */
export function modernErrorStatus (code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound: return 404
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400
    default: return 200
  }
}

/** What a handler's outcome becomes on the wire. */
export type ModernOutcome = { ok: true, result: JsonObject } | { ok: false, code: number, message: string, data?: unknown }

/**
 * Status and body of an outcome. Output JSON cannot carry (a BigInt, a
 * cycle, a throwing getter or toJSON, McpError data of that kind) is a
 * server fault: logged, answered 200 with -32603 and the id.
 */
export type ModernAnswer = (id: RequestId, outcome: ModernOutcome, cacheable: boolean, request: FastifyRequest, method: string, subject?: () => string) => { status: number, body: string | Buffer }

export function createModernAnswer (serverInfo: ServerInfo, cacheHints: ResolvedCacheHints): ModernAnswer {
  function stamp (result: JsonObject, cacheable: boolean, request: FastifyRequest): JsonObject {
    const out: JsonObject = { ...result }
    if (typeof out.resultType !== 'string') out.resultType = 'complete'
    out._meta = isJsonObject(result._meta)
      ? { ...result._meta, [SERVER_INFO_META]: serverInfo }
      : { [SERVER_INFO_META]: serverInfo }
    if (cacheable && out.resultType === 'complete') {
      // A handler may set its own hints on a result; anything invalid falls back to the configured ones.
      let configured: CacheHints | undefined
      if (!isValidTtl(out.ttlMs)) out.ttlMs = (configured ??= resolveHints(cacheHints, request)).ttlMs
      if (!isValidScope(out.cacheScope)) out.cacheScope = (configured ??= resolveHints(cacheHints, request)).cacheScope
    }
    return out
  }

  // The fields every complete modern result gains, serialised once.
  const completeFields = '"resultType":"complete","_meta":' + prepareResult({ [SERVER_INFO_META]: serverInfo } satisfies ResultMeta).json
  const hintFields = (hints: CacheHints): string => ',"ttlMs":' + String(hints.ttlMs) + ',"cacheScope":"' + hints.cacheScope + '"'
  const staticHintFields = isStatic(cacheHints) ? hintFields(cacheHints) : undefined

  // Immutable results whose stamp never varies (static or no hints): the response tail is prepared once.
  const preparedCacheable = new WeakMap<object, PreparedResult | undefined>()
  const preparedPlain = new WeakMap<object, PreparedResult | undefined>()
  const prepareStamped = (fields: string) => (result: object): PreparedResult | undefined => {
    const json = appendFields(jsonOf(result), completeFields + fields)
    return json === undefined ? undefined : prepareJson(json)
  }
  const prepareCacheable = prepareStamped(staticHintFields ?? '')
  const preparePlain = prepareStamped('')

  /** The cache-hint members a result gets (none when it is not cacheable). */
  const hintsFor = (cacheable: boolean, request: FastifyRequest): string =>
    cacheable ? (staticHintFields ?? hintFields(resolveHints(cacheHints, request))) : ''

  /** The response carrying the stamped result; the common case splices text instead of copying the result. */
  function stampedResponse (id: RequestId, result: JsonObject, cacheable: boolean, request: FastifyRequest): string | Buffer {
    if (result.resultType === undefined && result._meta === undefined && result.ttlMs === undefined && result.cacheScope === undefined) {
      // Preset bytes and prepared tails belong to frozen results only: a fresh one (most calls' results) skips their lookups.
      if (Object.isFrozen(result)) {
        // A catalogue's list: its preset bytes copied behind the id, never serialised or encoded whole.
        const parts = jsonBytesOf(result)
        if (parts !== undefined) return partsResponse(id, resultParts(parts, completeFields + hintsFor(cacheable, request)))
        if (!cacheable || staticHintFields !== undefined) {
          // Only immutable results are ever stored, so a hit needs no further check.
          const cache = cacheable ? preparedCacheable : preparedPlain
          const prepared = cache.get(result) ?? (isImmutableData(result)
            ? memoizeImmutable(cache, result, cacheable ? prepareCacheable : preparePlain)
            : undefined)
          if (prepared !== undefined) return preparedResponse(id, prepared)
        }
      }
      const json = appendFields(jsonOf(result), completeFields + hintsFor(cacheable, request))
      if (json !== undefined) return resultJsonResponse(id, json)
    }
    return resultJsonResponse(id, objectJson(stamp(result, cacheable, request)))
  }

  // `subject` names the handler in the log line, built only when there is one to write.
  return function answer (id, outcome, cacheable, request, method, subject) {
    try {
      return outcome.ok
        ? { status: 200, body: stampedResponse(id, outcome.result, cacheable, request) }
        : { status: modernErrorStatus(outcome.code), body: errorResponse(id, outcome.code, outcome.message, outcome.data) }
    } catch (err) {
      request.log.error({ err, method }, `MCP handler ${subject === undefined ? method : subject()} output could not be serialised as JSON`)
      return { status: 200, body: internalErrorResponse(id) }
    }
  }
}
