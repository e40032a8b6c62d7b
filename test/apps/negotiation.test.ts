/**
 * MCP Apps on the wire, in both eras: the extension advertised, the UI
 * metadata each client is shown, app-only tools, and every `_meta.ui` checked
 * against the ext-apps package's own JSON Schema (schema.json) and zod schemas,
 * and read back with its own helpers. The official SDK client is one of the peers.
 */
import { createRequire } from 'node:module'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import {
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  RESOURCE_MIME_TYPE
} from '@modelcontextprotocol/ext-apps/app-bridge'
import { EXTENSION_ID, getUiCapability } from '@modelcontextprotocol/ext-apps/server'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { appResource, appTool, McpError, type DeploymentEra } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { listWithoutUi } from '../../lib/apps/ui-view.js'
import { appsServer, BOARD_URI } from '../../examples/apps-server.js'
import { NoteStore } from '../../examples/server.js'

const require = createRequire(import.meta.url)
const extAppsSchema = require('@modelcontextprotocol/ext-apps/schema.json') as { $defs: Record<string, object> }
const ajv = new Ajv2020({ strict: false, allErrors: true })
for (const [name, schema] of Object.entries(extAppsSchema.$defs)) ajv.addSchema({ ...schema, $id: name })
const toolMetaValid = ajv.getSchema('McpUiToolMeta')!
const resourceMetaValid = ajv.getSchema('McpUiResourceMeta')!
const clientCapsValid = ajv.getSchema('McpUiClientCapabilities')!

const UI_CAPABILITIES = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } }

async function appsApp (t: Test, era: DeploymentEra = 'dual', store = new NoteStore()): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: appsServer(store), serverInfo: { name: 'apps-test', version: '1.0.0' }, era, validate: { results: true } })
  t.teardown(() => app.close())
  return app
}

function checkToolMeta (t: Test, tool: any): void {
  t.ok(toolMetaValid(tool._meta.ui), `${tool.name}: _meta.ui matches McpUiToolMeta (schema.json) ${JSON.stringify(toolMetaValid.errors ?? '')}`)
  t.ok(McpUiToolMetaSchema.safeParse(tool._meta.ui).success, `${tool.name}: _meta.ui parses with McpUiToolMetaSchema`)
  t.equal(getToolUiResourceUri(tool), BOARD_URI, `${tool.name}: ext-apps finds the resource`)
}

t.test('the client capability we read is the one ext-apps declares', async (t) => {
  t.ok(clientCapsValid(UI_CAPABILITIES.extensions[EXTENSION_ID]), 'McpUiClientCapabilities')
  t.strictSame(getUiCapability(UI_CAPABILITIES as any), { mimeTypes: [RESOURCE_MIME_TYPE] })
})

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: the extension is advertised; a client declaring it sees every UI tool, with ext-apps-valid metadata`, async (t) => {
    const app = await appsApp(t)
    const client = injectClient(app, { era, clientCapabilities: UI_CAPABILITIES })
    const opened = await client.discover() as any
    t.strictSame(opened.capabilities.extensions?.[EXTENSION_ID], {}, 'advertised')
    const { tools } = await client.listTools()
    t.strictSame(tools.map((tool) => tool.name), ['show_notes', 'add_note_from_app'])
    for (const tool of tools) checkToolMeta(t, tool)
    t.ok(isToolVisibilityAppOnly(tools[1] as any), 'add_note_from_app is app-only to ext-apps')
    t.notOk(isToolVisibilityAppOnly(tools[0] as any), 'show_notes is not')

    const { resources } = await client.listResources()
    t.match(resources, [{ uri: BOARD_URI, name: 'board', mimeType: RESOURCE_MIME_TYPE, _meta: { ui: { prefersBorder: true } } }])
    const read = await client.readResource(BOARD_URI)
    const content = read.contents[0] as any
    t.equal(content.mimeType, RESOURCE_MIME_TYPE)
    t.match(content.text, /^<!DOCTYPE html>/)
    t.ok(resourceMetaValid(content._meta.ui), 'content _meta.ui matches McpUiResourceMeta')
    t.ok(McpUiResourceMetaSchema.safeParse(content._meta.ui).success, 'and McpUiResourceMetaSchema')
    t.ok(resourceMetaValid((resources[0] as any)._meta.ui), 'listed _meta.ui matches McpUiResourceMeta')

    const added = await client.callTool('add_note_from_app', { title: 'From the app', body: 'hello' })
    t.match(added.structuredContent, { added: { id: '3', title: 'From the app' } })
    t.match(added.content, [{ type: 'text', text: 'Added note 3: From the app' }], 'a text answer as well')
  })
}

t.test('modern: a client without the extension gets no UI metadata, no app-only tool, no ui:// resource in the list', async (t) => {
  const store = new NoteStore()
  const app = await appsApp(t, 'dual', store)
  for (const caps of [{}, { extensions: { [EXTENSION_ID]: { mimeTypes: ['text/html'] } } }, { extensions: { [EXTENSION_ID]: 'yes' } }, { extensions: [] }]) {
    const client = injectClient(app, { era: 'modern', clientCapabilities: caps as any })
    const { tools } = await client.listTools()
    t.strictSame(tools, [{
      name: 'show_notes',
      title: 'Show notes',
      description: 'Shows the notes on an interactive board where the user can add notes.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true }
    }], `capabilities ${JSON.stringify(caps)}: show_notes only, without _meta`)
    t.strictSame((await client.listResources()).resources, [], 'no ui:// resource listed')
    t.equal((await client.readResource(BOARD_URI)).contents.length, 1, 'the app can still be read by URI')
    const shown = await client.callTool('show_notes')
    t.match(shown.content, [{ type: 'text', text: /1\. Welcome/ }], 'the text fallback')
    const refused = await client.callTool('add_note_from_app', { title: 'x', body: 'y' }).catch((err: unknown) => err)
    t.ok(refused instanceof McpError, 'an app-only tool is refused')
    t.match(refused, { code: -32021, data: { requiredCapabilities: { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } } } })
  }
  t.equal(store.all().length, 2, 'no note was added by a client without apps')
})

t.test('legacy: initialize advertises the extension; lists keep the UI metadata (stateless: the declaration is not seen again)', async (t) => {
  const app = await appsApp(t, 'legacy')
  const client = injectClient(app, { era: 'legacy', clientCapabilities: {} })
  const opened = await client.discover()
  t.strictSame((opened.capabilities as any).extensions, { [EXTENSION_ID]: {} })
  const { tools } = await client.listTools()
  t.equal(tools.length, 2)
  for (const tool of tools) checkToolMeta(t, tool)
})

t.test('the view without UI is made once per served list and frozen', async (t) => {
  const list = Object.freeze({ tools: Object.freeze([Object.freeze({ name: 'a', inputSchema: { type: 'object' }, _meta: Object.freeze({ ui: { resourceUri: 'ui://x/y' }, 'ui/resourceUri': 'ui://x/y', other: 1 }) })]) })
  const first = listWithoutUi('tools/list', list as any)
  t.equal(listWithoutUi('tools/list', list as any), first, 'the same object the second time')
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.tools))
  t.strictSame(first, { tools: [{ name: 'a', inputSchema: { type: 'object' }, _meta: { other: 1 } }] }, 'other _meta kept')
  const mutable = { tools: [{ name: 'b', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://x/y', visibility: ['app'] } } }] }
  t.strictSame(listWithoutUi('tools/list', mutable as any), { tools: [] }, 'app-only tools dropped')
  t.not(listWithoutUi('tools/list', mutable as any), listWithoutUi('tools/list', mutable as any), 'a mutable list is viewed afresh each time')
})

t.test('a server without UI resources advertises no extension and shows lists unchanged', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: { listTools: () => ({ tools: [{ name: 'x', inputSchema: { type: 'object' }, _meta: { ui: { resourceUri: 'ui://a/b' } } }] }), callTool: () => ({ content: [] }) }, serverInfo: { name: 's', version: '1' } })
  t.teardown(() => app.close())
  t.equal(app.mcp.capabilities.modern.extensions, undefined)
  t.equal(app.mcp.capabilities.legacy.extensions, undefined)
  const { tools } = await injectClient(app, { era: 'modern' }).listTools()
  t.strictSame((tools[0] as any)._meta, { ui: { resourceUri: 'ui://a/b' } }, 'a module of its own making is served as it is')
})

for (const mode of ['legacy', { pin: '2026-07-28' }] as const) {
  t.test(`official SDK client (${typeof mode === 'string' ? mode : mode.pin}) declaring the extension over HTTP`, async (t) => {
    const store = new NoteStore()
    const app = await appsApp(t, 'dual', store)
    await app.listen({ host: '127.0.0.1', port: 0 })
    const url = new URL(`http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`)
    const client = new Client({ name: 'apps-host', version: '1.0.0' }, { capabilities: UI_CAPABILITIES as any, versionNegotiation: { mode } as any })
    await client.connect(new StreamableHTTPClientTransport(url))
    t.teardown(() => client.close())
    t.strictSame((client.getServerCapabilities() as any)?.extensions?.[EXTENSION_ID], {}, 'the SDK reads the advertised extension')
    const { tools } = await client.listTools()
    t.equal(tools.length, 2)
    for (const tool of tools) checkToolMeta(t, tool)
    const result = await client.callTool({ name: 'add_note_from_app', arguments: { title: 'SDK', body: 'b' } })
    t.equal(result.isError, undefined)
    t.equal(store.get('3')?.title, 'SDK', 'the note reached the store')
  })
}

t.test('app definitions change at runtime like any other: add, disable, remove (and the view follows)', async (t) => {
  const app = await appsApp(t)
  app.mcp.resources.add('chart', appResource({ uri: 'ui://notes/chart', html: '<!DOCTYPE html><p>chart</p>', csp: { resourceDomains: ['https://cdn.example.com'] } }))
  app.mcp.tools.add('show_chart', appTool({ ui: { resourceUri: 'ui://notes/chart' }, handler: () => ({ content: [{ type: 'text', text: 'a chart' }] }) }))
  const withUi = injectClient(app, { era: 'modern', clientCapabilities: UI_CAPABILITIES })
  const without = injectClient(app, { era: 'modern' })
  const tools = (await withUi.listTools()).tools
  t.strictSame(tools.map((tool) => tool.name), ['show_notes', 'add_note_from_app', 'show_chart'])
  t.ok(toolMetaValid((tools[2] as any)._meta.ui), 'the added tool carries valid _meta.ui')
  t.equal(getToolUiResourceUri(tools[2] as any), 'ui://notes/chart')
  const read = await withUi.readResource('ui://notes/chart')
  t.ok(resourceMetaValid((read.contents[0] as any)._meta.ui), 'the added resource carries valid _meta.ui')
  t.strictSame((await without.listTools()).tools.map((tool) => [tool.name, (tool as any)._meta]), [['show_notes', undefined], ['show_chart', undefined]], 'the view of the changed list')
  await app.mcp.tools.disable('add_note_from_app')
  t.strictSame((await withUi.listTools()).tools.map((tool) => tool.name), ['show_notes', 'show_chart'])
  await app.mcp.resources.remove('chart')
  t.strictSame((await withUi.listResources()).resources.map((r) => r.uri), [BOARD_URI])
})
