/**
 * The official stack serving the catalogue's tools from their JSON Schemas
 * (`fromJsonSchema`, validated by the SDK's JSON Schema validator), so its
 * `tools/list` lists the very schemas the plugin lists. See official-app.ts
 * for the HTTP face, and official-zod.ts for the same tools written in zod.
 */
import { fromJsonSchema, McpServer } from '@modelcontextprotocol/server'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from '../catalog.js'
import { serve } from '../child.js'
import { officialApp } from './official-app.js'

// Schemas converted once, not per request: what a careful user would do.
const tools = TOOLS.map((tool) => ({ tool, inputSchema: fromJsonSchema<Record<string, unknown>>(tool.inputSchema) }))

function factory (): McpServer {
  const server = new McpServer({ ...SERVER_INFO }, { cacheHints: { 'server/discover': { ...DISCOVER_HINTS } } })
  for (const { tool, inputSchema } of tools) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema,
      annotations: tool.annotations
    }, async (args: Record<string, unknown>) => callTool(tool.name, args))
  }
  return server
}

await serve(officialApp(factory))
