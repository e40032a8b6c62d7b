/**
 * The official stack, shared by the `official` and `official-zod` servers,
 * which differ only in how the catalogue's input schemas are written:
 * `@modelcontextprotocol/fastify` (app with its DNS rebinding hooks) +
 * `createMcpHandler` (one `McpServer` per request, as its docs prescribe,
 * stateless legacy fallback), registering the catalogue's tools.
 *
 * `@modelcontextprotocol/node`'s `toNodeHandler` is not installed, so the
 * route bridges Fastify to the web-standard `fetch` face itself: headers
 * copied, the body Fastify already parsed passed as `parsedBody`, the
 * `Response` written back whole.
 */
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify'
import { createMcpHandler, McpServer, type StandardSchemaWithJSON } from '@modelcontextprotocol/server'
import { callTool, DISCOVER_HINTS, SERVER_INFO, type ToolDefinition, TOOLS } from '../catalog.js'
import { serve } from '../child.js'

/** Tools and what their calls answer: the catalogue's by default (bench/cold-start-catalog.ts has ten more). */
export interface OfficialCatalogue {
  tools: readonly ToolDefinition[]
  call: (name: string, args: Record<string, unknown>) => ReturnType<typeof callTool>
}

/** Serves the catalogue's tools, each validated with the input schema `inputSchemaOf` gives (made once, not per request). */
export async function serveOfficial (
  inputSchemaOf: (tool: ToolDefinition) => StandardSchemaWithJSON<Record<string, unknown>, Record<string, unknown>>,
  catalogue: OfficialCatalogue = { tools: TOOLS, call: callTool }
): Promise<void> {
  const tools = catalogue.tools.map((tool) => ({ tool, inputSchema: inputSchemaOf(tool) }))
  const factory = (): McpServer => {
    const server = new McpServer({ ...SERVER_INFO }, { cacheHints: { 'server/discover': { ...DISCOVER_HINTS } } })
    for (const { tool, inputSchema } of tools) {
      server.registerTool(tool.name, {
        title: tool.title,
        description: tool.description,
        inputSchema,
        annotations: tool.annotations
      }, async (args: Record<string, unknown>) => catalogue.call(tool.name, args))
    }
    return server
  }
  const handler = createMcpHandler(factory)
  const app = createMcpFastifyApp()
  app.post('/mcp', async (request, reply) => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value)
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    }
    const webRequest = new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, { method: 'POST', headers })
    const response = await handler.fetch(webRequest, { parsedBody: request.body })
    reply.code(response.status)
    response.headers.forEach((value, name) => { reply.header(name, value) })
    return reply.send(Buffer.from(await response.arrayBuffer()))
  })
  app.addHook('onClose', async () => { await handler.close() })
  await serve(app)
}
