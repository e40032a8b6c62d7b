/**
 * The plugin under test: a small but realistic server module (four tools)
 * on a default Fastify app, both eras served.
 */
import Fastify from 'fastify'
import mcpCapabilities from '../../lib/index.js'
import { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } from '../catalog.js'
import { serve } from '../child.js'

/** A static tool list, deeply frozen: the plugin serialises it once and reuses the text (see README, Performance). */
const TOOL_LIST = deepFreeze({ tools: structuredClone(TOOLS) })

function deepFreeze<T> (value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
    Object.freeze(value)
  }
  return value
}

const server = {
  listTools () {
    return TOOL_LIST
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
  cacheHints: { discover: { ...DISCOVER_HINTS } }
})
await serve(app)
