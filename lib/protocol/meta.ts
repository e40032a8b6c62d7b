/** The `_meta` keys of 2026-07-28 requests and results (docs/protocol.md). */
import { isJsonObject } from './jsonrpc.js'

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
/** On every modern result: the server's `Implementation`. */
export const SERVER_INFO_META = 'io.modelcontextprotocol/serverInfo'

/** What makes a request modern (docs/protocol.md): its `_meta` names a protocol version. */
export function namesProtocolVersion (meta: unknown): boolean {
  return isJsonObject(meta) && Object.hasOwn(meta, META_PROTOCOL_VERSION)
}
