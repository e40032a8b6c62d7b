/**
 * The package's `serveStdio`: loads the stdio transport (lib/stdio/
 * serve-stdio.ts and what it uses) when it is first called, so importing the
 * package for HTTP never evaluates it, and the bundle keeps it in a chunk of
 * its own (scripts/build.mjs splits on dynamic imports).
 */
import type { FastifyInstance } from 'fastify'
import type { StdioServer } from './serve-stdio.js'
import type { StdioOptions } from './stdio-options.js'

/**
 * Serves `app`'s MCP endpoint (fastify-mcp-capabilities registered on it)
 * over stdin and stdout; resolves once reading has started. See
 * docs/stdio.md.
 */
export async function serveStdio (app: FastifyInstance, options: StdioOptions = {}): Promise<StdioServer> {
  const transport = await import('./serve-stdio.js')
  return await transport.serveStdio(app, options)
}
