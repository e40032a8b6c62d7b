/**
 * `fastify-mcp-capabilities/client`: discover any MCP server (either era) and
 * cache what it offers. No Fastify in here: only `fetch` and Web APIs.
 */
export { discover, DEFAULT_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_CLIENT_INFO } from './discover.js'
export type { Discovery, DiscoveryCommon, ModernDiscovery, LegacyDiscovery, DiscoverOptions, ModernReason, LegacyReason } from './discover.js'
export { DiscoverCache, DEFAULT_MAX_ENTRIES } from './cache.js'
export type { DiscoverCacheOptions } from './cache.js'
export type { LegacyInitializeResult } from './initialize-probe.js'
export type { FetchLike } from './exchange.js'
export { DEFAULT_CREDENTIAL_HEADERS } from './credential.js'
export {
  DiscoverError,
  DiscoverNetworkError,
  DiscoverTimeoutError,
  DiscoverAbortError,
  DiscoverHttpError,
  DiscoverJsonRpcError,
  DiscoverInvalidResultError
} from './discover-errors.js'
export type { DiscoverErrorKind } from './discover-errors.js'
export { parseDiscoverResult } from '../protocol/discover-result.js'
export type { ParsedDiscoverResult, DiscoverResultParse, DiscoverResultError, ServerInfo, ServerIcon, CacheScope } from '../protocol/discover-result.js'
export { sseEvents } from './sse-reader.js'
export type { SseEvent } from './sse-reader.js'
