/**
 * Coded errors thrown at registration (bad options, a server module that
 * would advertise what it cannot serve). Protocol errors sent to clients are
 * `McpError` (see mcp-error.ts), not these.
 */
import createError from '@fastify/error'

export const FST_MCP_INVALID_ERA = createError<'FST_MCP_INVALID_ERA', [string, string]>(
  'FST_MCP_INVALID_ERA',
  'Invalid era "%s": expected one of %s',
  500,
  TypeError
)

export const FST_MCP_INVALID_SERVER = createError<'FST_MCP_INVALID_SERVER', [string]>(
  'FST_MCP_INVALID_SERVER',
  'Invalid server module: %s',
  500,
  TypeError
)

export const FST_MCP_MISSING_HANDLER = createError<'FST_MCP_MISSING_HANDLER', [string, string]>(
  'FST_MCP_MISSING_HANDLER',
  'Capability "%s" needs the handler "%s", which is missing from the server module',
  500
)

export const FST_MCP_INVALID_CAPABILITIES = createError<'FST_MCP_INVALID_CAPABILITIES', [string]>(
  'FST_MCP_INVALID_CAPABILITIES',
  'Invalid capabilities declared by the server module: %s',
  500,
  TypeError
)

export const FST_MCP_INVALID_OPTION = createError<'FST_MCP_INVALID_OPTION', [string, string]>(
  'FST_MCP_INVALID_OPTION',
  'Invalid option "%s": %s',
  500,
  TypeError
)

export const FST_MCP_ALREADY_REGISTERED = createError<'FST_MCP_ALREADY_REGISTERED', []>(
  'FST_MCP_ALREADY_REGISTERED',
  'fastify-mcp-capabilities is already registered in this context (fastify.mcp exists): register each endpoint in its own encapsulated context',
  500
)

export const FST_MCP_REQUEST_STATE_SECRET_REQUIRED = createError<'FST_MCP_REQUEST_STATE_SECRET_REQUIRED', [string]>(
  'FST_MCP_REQUEST_STATE_SECRET_REQUIRED',
  'Option "requestStateSecret" is required with a shared %s: instances behind a load balancer must sign and verify requestState with the same key (a random key per process cannot work there)',
  500,
  TypeError
)

export const FST_MCP_SCALE_UNAVAILABLE = createError<'FST_MCP_SCALE_UNAVAILABLE', [string, { cause: unknown }?]>(
  'FST_MCP_SCALE_UNAVAILABLE',
  'The shared state is not available at registration: %s',
  500
)

export const FST_MCP_INVALID_DEFINITION = createError<'FST_MCP_INVALID_DEFINITION', [string, string]>(
  'FST_MCP_INVALID_DEFINITION',
  'Invalid definition of %s: %s',
  500,
  TypeError
)
