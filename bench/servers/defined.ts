/**
 * The plugin with the catalogue's tools defined from TypeBox schemas
 * (`defineTools`): every call's arguments are validated before the handler
 * runs. Compared on `tools/call` with the same tools as raw handlers
 * (servers/plugin.ts, no validation) and with the official stack.
 */
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from '../catalog.js'
import { serve } from '../child.js'

const about = (name: string) => {
  const tool = TOOLS.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`${name} is not in the catalogue`)
  return { title: tool.title, description: tool.description, annotations: tool.annotations }
}

// The catalogue's input schemas, written as TypeBox; handlers answer what the raw module answers.
const tools = defineTools({
  search_issues: {
    ...about('search_issues'),
    input: Type.Object({
      query: Type.String({ description: 'Words to look for' }),
      state: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Literal('all')], { default: 'open' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 }))
    }),
    handler: (args) => callTool('search_issues', args)
  },
  get_issue: {
    ...about('get_issue'),
    input: Type.Object({ number: Type.Integer({ minimum: 1, description: 'Issue number' }) }),
    handler: (args) => callTool('get_issue', args)
  },
  create_issue: {
    ...about('create_issue'),
    input: Type.Object({
      title: Type.String({ minLength: 1, maxLength: 200 }),
      body: Type.Optional(Type.String()),
      labels: Type.Optional(Type.Array(Type.String(), { uniqueItems: true }))
    }),
    handler: (args) => callTool('create_issue', args)
  },
  add_comment: {
    ...about('add_comment'),
    input: Type.Object({ number: Type.Integer({ minimum: 1 }), body: Type.String({ minLength: 1 }) }),
    handler: (args) => callTool('add_comment', args)
  }
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
