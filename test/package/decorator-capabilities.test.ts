/**
 * What the README promises about `app.mcp.capabilities`: it is the very
 * value `buildCapabilities` returns for the registered module and options
 * (so a caller wanting the narrowed TypeScript type calls buildCapabilities
 * with the same module), frozen, for every era setting, with and without tasks.
 */
import t from 'tap'
import Fastify from 'fastify'
import mcpCapabilities, { buildCapabilities } from '../../lib/index.js'

const fn = async (): Promise<object> => ({})
const modules: Record<string, object> = {
  tools: { listTools: fn, callTool: fn },
  everything: {
    listTools: fn,
    callTool: fn,
    listPrompts: fn,
    getPrompt: fn,
    listResources: fn,
    readResource: fn,
    subscribeResource: fn,
    unsubscribeResource: fn,
    complete: fn,
    setLogLevel: fn
  },
  declared: { listTools: fn, callTool: fn, capabilities: { tools: { listChanged: false } } }
}

for (const [name, server] of Object.entries(modules)) {
  for (const era of ['legacy', 'modern', 'dual'] as const) {
    for (const tasks of [false, true]) {
      t.test(`${name}, era ${era}, tasks ${String(tasks)}`, async (t) => {
        const app = Fastify()
        t.teardown(() => app.close())
        await app.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1.0.0' }, era, tasks })
        t.strictSame(app.mcp.capabilities.modern, buildCapabilities(server, { era: 'modern', tasks }))
        t.strictSame(app.mcp.capabilities.legacy, buildCapabilities(server, { era: 'legacy' }))
        t.ok(Object.isFrozen(app.mcp.capabilities.modern) && Object.isFrozen(app.mcp.capabilities.legacy), 'frozen')
      })
    }
  }
}
