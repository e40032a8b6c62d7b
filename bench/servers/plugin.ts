/**
 * The plugin under test: a small but realistic server module (four tools)
 * on a default Fastify app, both eras served.
 */
import Fastify from 'fastify'
import mcpCapabilities from '../../lib/index.js'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from '../catalog.js'
import { serve } from '../child.js'

const server = {
  listTools () {
    return { tools: TOOLS }
  },
  callTool (params: { name: string, arguments?: Record<string, unknown> }) {
    return callTool(params.name, params.arguments ?? {})
  }
}

const app = Fastify()
app.register(mcpCapabilities, {
  server,
  serverInfo: { ...SERVER_INFO },
  era: 'dual',
  path: '/mcp',
  discover: { ...DISCOVER_HINTS }
})
await serve(app)
