/**
 * The plugin with the catalogue's tools defined from TypeBox schemas
 * (`defineTools`): every call's arguments are validated before the handler
 * runs. Compared on `tools/call` with the same tools as raw handlers
 * (servers/plugin.ts, no validation) and with the official stack.
 */
import Fastify from 'fastify'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from '../catalog.js'
import { TOOL_INPUTS } from '../catalog-typebox.js'
import { serve } from '../child.js'

const about = (name: string) => {
  const tool = TOOLS.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`${name} is not in the catalogue`)
  return { title: tool.title, description: tool.description, annotations: tool.annotations }
}

// The catalogue's input schemas, written as TypeBox; handlers answer what the raw module answers.
const tools = defineTools({
  search_issues: { ...about('search_issues'), input: TOOL_INPUTS.search_issues, handler: (args) => callTool('search_issues', args) },
  get_issue: { ...about('get_issue'), input: TOOL_INPUTS.get_issue, handler: (args) => callTool('get_issue', args) },
  create_issue: { ...about('create_issue'), input: TOOL_INPUTS.create_issue, handler: (args) => callTool('create_issue', args) },
  add_comment: { ...about('add_comment'), input: TOOL_INPUTS.add_comment, handler: (args) => callTool('add_comment', args) }
})

const app = Fastify()
app.register(mcpCapabilities, {
  server: tools,
  serverInfo: { ...SERVER_INFO },
  era: 'dual',
  path: '/mcp',
  cacheHints: { discover: { ...DISCOVER_HINTS } }
})
await serve(app)
