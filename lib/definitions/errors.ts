/** Coded errors of the define helpers, thrown when a definition is made, never at request time. */
import createError from '@fastify/error'

export const FST_MCP_INVALID_DEFINITION = createError<'FST_MCP_INVALID_DEFINITION', [string, string]>(
  'FST_MCP_INVALID_DEFINITION',
  'Invalid definition of %s: %s',
  500,
  TypeError
)
