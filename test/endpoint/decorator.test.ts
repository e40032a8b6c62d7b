// `fastify.mcp`: the frozen capability objects the endpoint advertises, equal
// to buildCapabilities of the module in both eras, and equal to what the wire says.
import t from 'tap'
import { buildCapabilities, type ServerModule } from '../../lib/index.js'
import { buildApp, fullModule, SERVER_INFO, toolsModule } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const MODULES: Array<[string, () => ServerModule]> = [
  ['every handler', () => fullModule()],
  ['tools only', () => toolsModule()],
  ['completions only', () => ({ complete: () => ({ completion: { values: [] } }) })],
  ['declared capabilities', () => fullModule({ capabilities: { tools: {}, resources: { subscribe: false }, logging: false, experimental: { 'x.example/y': { on: true } } } })],
  ['capabilities as a function of the era', () => fullModule({ capabilities: ({ era }: { era: string }) => (era === 'legacy' ? { tools: {} } : { tools: {}, prompts: {} }) })]
]

function deepFrozen (value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  return Object.isFrozen(value) && Object.values(value).every(deepFrozen)
}

for (const [name, make] of MODULES) {
  for (const era of ['legacy', 'modern', 'dual'] as const) {
    for (const tasks of [false, true]) {
      t.test(`${name}, era ${era}, tasks ${String(tasks)}`, async (t) => {
        const app = await buildApp(t, { server: make(), era, tasks })
        const { capabilities } = app.mcp
        t.strictSame(capabilities.legacy, buildCapabilities(make(), { era: 'legacy' }), 'legacy equals buildCapabilities')
        t.strictSame(capabilities.modern, buildCapabilities(make(), { era: 'modern', tasks }), 'modern equals buildCapabilities')
        t.ok(Object.isFrozen(app.mcp), 'fastify.mcp is frozen')
        t.ok(deepFrozen(capabilities), 'the capability objects are deeply frozen')
        t.throws(() => { (capabilities.modern as Record<string, unknown>).tools = {} }, TypeError, 'cannot be changed')
        t.throws(() => { (app.mcp as unknown as Record<string, unknown>).capabilities = {} }, TypeError)
        t.equal(app.mcp.era, era)
        t.equal(app.mcp.path, '/mcp')
        t.strictSame(app.mcp.serverInfo, SERVER_INFO)

        // the wire advertises exactly these objects
        const mcp = mcpClient(t, app)
        if (era !== 'modern') t.strictSame((await mcp.initialize('2025-11-25')).json.result.capabilities, capabilities.legacy, 'initialize advertises mcp.capabilities.legacy')
        if (era !== 'legacy') t.strictSame((await mcp.modern('server/discover')).json.result.capabilities, capabilities.modern, 'discover advertises mcp.capabilities.modern')
      })
    }
  }
}
