// Guards issue 20: the exported `buildCapabilities(module)` returned `{}` for
// a module built by spreading defineTools / definePrompts / defineResources
// groups, since the groups sit under symbol keys that only composition
// reads. It must return what the plugin advertises for the same module, in
// both eras, for groups alone and for groups beside raw handlers.
import t from 'tap'
import { buildCapabilities, definePrompts, defineResources, defineTools, errors } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

const modules = {
  'tool groups only': () => ({
    ...defineTools({ a: { handler: () => text('a') } }),
    ...defineTools({ b: { handler: () => text('b') } })
  }),
  'every kind of group, completers included': () => ({
    ...defineTools({ a: { handler: () => text('a') } }),
    ...definePrompts({ p: { handler: () => 'p' } }),
    ...defineResources({ r: { uri: 'x://r', read: () => 'r' } }),
    ...defineResources({ t: { uriTemplate: 'x://t/{id}', read: ({ id }) => id, complete: { id: () => ['1', '2'] } } })
  }),
  'groups beside raw handlers': () => ({
    ...defineTools({ a: { handler: () => text('a') } }),
    listPrompts: () => ({ prompts: [{ name: 'raw' }] }),
    getPrompt: () => ({ messages: [] }),
    subscribeResource: () => ({}),
    ...defineResources({ r: { uri: 'x://r', read: () => 'r' } })
  })
}

for (const [name, make] of Object.entries(modules)) {
  t.test(`${name}: what the plugin advertises, in both eras`, async (t) => {
    const app = await buildApp(t, { server: make() })
    const legacy = buildCapabilities(make(), { era: 'legacy' }) as Record<string, unknown>
    const modern = buildCapabilities(make(), { era: 'modern' }) as Record<string, unknown>
    t.strictSame(legacy, app.mcp.capabilities.legacy)
    t.strictSame(modern, app.mcp.capabilities.modern)
    t.strictSame(buildCapabilities(make()), legacy, 'legacy by default')
    t.ok(legacy.tools !== undefined && modern.tools !== undefined, 'the tools groups are seen')
    t.strictSame(modern.tools, { listChanged: true })
    t.strictSame(legacy.tools, { listChanged: true })
    t.ok(Object.isFrozen(modern))
  })
}

t.test('the groups decide what is advertised, kind by kind', async (t) => {
  const caps = buildCapabilities(modules['every kind of group, completers included'](), { era: 'modern' }) as Record<string, unknown>
  t.strictSame(caps.prompts, { listChanged: true })
  t.strictSame(caps.resources, { listChanged: true, subscribe: true })
  t.strictSame(caps.completions, {}, 'a completer makes completion/complete served')
  const toolsOnly = buildCapabilities(modules['tool groups only'](), { era: 'legacy' }) as Record<string, unknown>
  t.equal(toolsOnly.prompts, undefined)
  t.equal(toolsOnly.resources, undefined)
  const beside = buildCapabilities(modules['groups beside raw handlers'](), { era: 'legacy' }) as Record<string, unknown>
  t.strictSame(beside.prompts, { listChanged: true }, 'raw prompt handlers beside tool groups')
  t.strictSame(beside.resources, { listChanged: true, subscribe: true })
})

t.test('a name defined twice across groups fails as at registration', async (t) => {
  t.throws(() => buildCapabilities({ ...defineTools({ a: { handler: () => 'x' } }), ...defineTools({ a: { handler: () => 'y' } }) }), errors.FST_MCP_DUPLICATE_DEFINITION)
  t.throws(() => buildCapabilities(null as never), { code: 'FST_MCP_INVALID_SERVER' })
})
