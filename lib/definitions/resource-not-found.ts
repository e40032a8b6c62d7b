/**
 * "Resource not found", in each era's words: legacy revisions use -32002;
 * 2026-07-28 standardised on -32602 with the URI in `data` (SEP-2164). The
 * helper throws the legacy code with `data.uri`, and the modern endpoint
 * rewrites any -32002 it sees, so a handler never needs to know the era.
 */
import { McpError } from '../mcp-error.js'

/** The legacy code for an unknown resource. */
export const RESOURCE_NOT_FOUND = -32002

/** Throw it from `readResource`: `throw resourceNotFound(params.uri)`. */
export function resourceNotFound (uri: string): McpError {
  return new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri })
}
