/**
 * The official stack with the catalogue's tools written as its docs write
 * them: zod object schemas, which the SDK validates each call's arguments
 * with. Timed on `tools/call` against `defineTools` (TypeBox), the
 * comparison issue 13 asks for. Same HTTP face as `official` (official-app.ts).
 */
import { McpServer } from '@modelcontextprotocol/server'
import { z } from 'zod'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from '../catalog.js'
import { serve } from '../child.js'
import { officialApp } from './official-app.js'

// The catalogue's input schemas in zod, built once (module scope), as a careful user would.
const SCHEMAS: Record<string, z.ZodObject> = {
  search_issues: z.object({
    query: z.string().describe('Words to look for'),
    state: z.enum(['open', 'closed', 'all']).default('open'),
    limit: z.number().int().min(1).max(100).default(20)
  }),
  get_issue: z.object({ number: z.number().int().min(1).describe('Issue number') }),
  create_issue: z.object({
    title: z.string().min(1).max(200),
    body: z.string().optional(),
    labels: z.array(z.string()).refine((labels) => new Set(labels).size === labels.length, 'labels must be unique').optional()
  }),
  add_comment: z.object({ number: z.number().int().min(1), body: z.string().min(1) })
}

const tools = TOOLS.map((tool) => {
  const inputSchema = SCHEMAS[tool.name]
  if (inputSchema === undefined) throw new Error(`no zod schema for ${tool.name}`)
  return { tool, inputSchema }
})

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
