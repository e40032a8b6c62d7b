/**
 * A `tools/call` handler that throws gives the model a tool execution error
 * (`isError: true`, the spec's way to let it correct itself) instead of a
 * bare JSON-RPC internal error. With `security.toolErrors: 'mask'` the text is
 * generic and the details stay in the server log. An `McpError` thrown on
 * purpose is a protocol error and never comes here.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { JsonObject } from '../protocol/jsonrpc.js'
import { clip } from '../protocol/describe.js'

export type ToolErrorMode = 'message' | 'mask'

export const TOOL_ERROR_MODES: readonly ToolErrorMode[] = Object.freeze(['message', 'mask'])
export const DEFAULT_TOOL_ERROR_MODE: ToolErrorMode = 'message'

/** Characters of a thrown message the model gets (a message may quote a whole request); the log keeps it all. */
export const MAX_TOOL_ERROR_CHARS = 4096

/** What a thrown value says: its message when it has one, else its text. */
function messageOf (err: unknown, tool: string): string {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : undefined
  if (message === undefined || message.length === 0) return `Tool "${tool}" failed`
  return message.length > MAX_TOOL_ERROR_CHARS ? message.slice(0, MAX_TOOL_ERROR_CHARS - 1) + '…' : message
}

/** The `CallToolResult` answering a throw from tool `name`'s handler; the throw is logged. */
export function thrownToolResult (err: unknown, name: unknown, mode: ToolErrorMode, logger: FastifyBaseLogger): JsonObject {
  const tool = typeof name === 'string' ? clip(name) : String(name)
  logger.error({ err, tool }, `MCP tool "${tool}" threw; answered as a tool execution error (isError)`)
  const text = mode === 'mask' ? `Tool "${tool}" failed with an internal error` : messageOf(err, tool)
  return { content: [{ type: 'text', text }], isError: true }
}
