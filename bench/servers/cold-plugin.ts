/**
 * Cold start: the plugin with the ten tools of bench/cold-start-catalog.ts
 * defined from TypeBox schemas (`defineTools`, arguments validated), both eras.
 *
 * The plugin is imported by its package name, so Node resolves it through
 * package.json `exports` to the built bundle (dist/lib/index.js, `npm run
 * build`): what a user installs, not lib/ compiled file by file. `Type` comes
 * the way the docs recommend (docs/getting-started.md), from the plugin's own
 * bundled TypeBox, `fastify-mcp-capabilities/typebox`.
 */
import Fastify from 'fastify'
import { SERVER_INFO } from '../catalog.js'
import { serve } from '../child.js'
import { COLD_TOOLS, coldAnswer } from '../cold-start-catalog.js'

// a string variable: neither tsc nor the per-file compile of the bench follows it into lib/
const PACKAGE: string = 'fastify-mcp-capabilities'
const { default: mcpCapabilities, defineTools } = await import(PACKAGE) as typeof import('../../lib/index.js')
const { Type } = await import(`${PACKAGE}/typebox`) as typeof import('../../lib/typebox/index.js')

const tools = defineTools(Object.fromEntries(COLD_TOOLS.map((tool) => [tool.name, {
  title: tool.title,
  description: tool.description,
  input: Type.Object({ query: Type.String({ minLength: 1 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) }),
  handler: (args: { query: string, limit?: number }) => coldAnswer(tool.name, args)
}])))

const app = Fastify()
app.register(mcpCapabilities, { server: tools, serverInfo: { ...SERVER_INFO }, era: 'dual', path: '/mcp' })
await serve(app)
