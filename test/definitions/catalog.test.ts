/**
 * Definitions that compose and change: any number of define groups spread
 * into one module (beside raw handlers) are all served; a name, URI or
 * template defined twice fails registration naming both places; single
 * definitions written with defineTool/definePrompt/defineResource are
 * collected; fastify.mcp.tools/prompts/resources change the catalogue at
 * runtime, served from the next request in both eras and told to real listen
 * streams; limits.listPageSize pages the lists with stable cursors.
 */
import { Type } from '@sinclair/typebox'
import t from 'tap'
import {
  defineResource, defineResources, definePrompt, definePrompts, defineTool, defineTools, type ToolDefinition
} from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { registrationError } from '../helpers/mcp-fixtures.js'
import { specValidator } from '../helpers/spec-schemas.js'
import { openListen, SseReader, startApp } from '../streams/helpers.js'
import { serve } from './helpers.js'

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

// A single tool in "a file of its own": typed from its schemas.
const add = defineTool({
  description: 'Adds',
  input: Type.Object({ a: Type.Number(), b: Type.Number() }),
  output: Type.Object({ sum: Type.Number() }),
  handler: ({ a, b }) => ({ sum: a + b })
})
const greet = definePrompt({
  arguments: Type.Object({ who: Type.String() }),
  handler: ({ who }) => `Hello ${who}`
})
const note = defineResource({
  uriTemplate: 'notes://note/{id}',
  read: ({ id }) => `note ${id}`
})

function everything () {
  return {
    ...defineTools({ add }),
    ...defineTools({ echo: { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say) } }),
    ...definePrompts({ greet }),
    ...definePrompts({ bye: { handler: () => 'Bye' } }),
    ...defineResources({ note }),
    ...defineResources({ readme: { uri: 'docs://readme', mimeType: 'text/markdown', read: () => '# Hi' } }),
    // raw handlers beside the definitions
    callTool: (params: { name: string }) => params.name === 'raw' ? text('raw answer') : text(`raw: ${params.name}`),
    listTools: () => ({ tools: [{ name: 'raw', inputSchema: { type: 'object' as const } }, { name: 'echo', inputSchema: { type: 'object' as const } }] })
  }
}

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: every group of every kind is served, raw handlers beside them`, async (t) => {
    const { app } = await serve(t, everything(), { validate: { results: true } })
    const client = injectClient(app, { era })
    const tools = (await client.listTools()).tools
    t.strictSame(tools.map((tool) => tool.name), ['add', 'echo', 'raw'], 'defined first, then raw items no definition names')
    const validate = specValidator(era === 'modern' ? '2026-07-28' : '2025-11-25', 'Tool')
    for (const tool of tools) t.ok(validate(tool), JSON.stringify(validate.errors))
    t.strictSame((await client.callTool('add', { a: 2, b: 3 })).structuredContent, { sum: 5 })
    t.strictSame((await client.callTool('echo', { say: 'hi' })).content, [{ type: 'text', text: 'hi' }], 'the definition wins over raw for its name')
    t.strictSame((await client.callTool('raw')).content, [{ type: 'text', text: 'raw answer' }], 'raw callTool serves names no definition has')
    t.strictSame((await client.listPrompts()).prompts.map((p) => p.name), ['greet', 'bye'])
    t.strictSame((await client.getPrompt('greet', { who: 'Ada' })).messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada' } }])
    t.strictSame((await client.getPrompt('bye')).messages[0]?.content, { type: 'text', text: 'Bye' })
    t.strictSame((await client.listResources()).resources.map((r) => r.uri), ['docs://readme'])
    t.strictSame((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate), ['notes://note/{id}'])
    t.strictSame((await client.readResource('notes://note/7')).contents, [{ uri: 'notes://note/7', text: 'note 7' }])
    t.strictSame((await client.readResource('docs://readme')).contents, [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Hi' }])
  })
}

t.test('a module that is one group, unspread, and a group spread twice, are served as one', async (t) => {
  const group = defineTools({ add })
  for (const server of [group, { ...group, ...group }]) {
    const { app } = await serve(t, server)
    t.strictSame((await injectClient(app).listTools()).tools.map((tool) => tool.name), ['add'])
  }
})

t.test('the same name, URI or template twice fails registration naming both places', async (t) => {
  const cases: Array<[string, object, RegExp]> = [
    ['tool', { ...defineTools({ add }), ...defineTools({ add }) }, /tool "add" is defined twice: defineTools at test\/definitions\/catalog\.test\.ts:\d+ and defineTools at test\/definitions\/catalog\.test\.ts:\d+/],
    ['prompt', { ...definePrompts({ greet }), ...definePrompts({ greet }) }, /prompt "greet" is defined twice: definePrompts at .*catalog\.test\.ts:\d+ and definePrompts at .*catalog\.test\.ts:\d+/],
    ['resource URI', { ...defineResources({ a: { uri: 'x://1', read: () => '' } }), ...defineResources({ b: { uri: 'x://1', read: () => '' } }) }, /resource "x:\/\/1" is defined twice: "a" \(defineResources at .*\) and "b" \(defineResources at .*\)/],
    ['template', { ...defineResources({ note }), ...defineResources({ other: { uriTemplate: 'notes://note/{id}', read: () => '' } }) }, /resource "notes:\/\/note\/\{id\}" is defined twice/],
    ['resource name', { ...defineResources({ note }), ...defineResources({ note: { uri: 'y://1', read: () => '' } }) }, /resource "note" is defined twice/]
  ]
  for (const [what, server, message] of cases) {
    const err = await registrationError({ server, serverInfo: { name: 'x', version: '1' } })
    t.equal(err?.code, 'FST_MCP_DUPLICATE_DEFINITION', what)
    t.match(err?.message, message, what)
  }
  t.throws(() => defineResources({ a: { uri: 'x://1', read: () => '' }, b: { uri: 'x://1', read: () => '' } }), { code: 'FST_MCP_DUPLICATE_DEFINITION' }, 'within one group at once')
})

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: add, update, disable, enable and remove are served from the next request`, async (t) => {
    const { app } = await serve(t, { ...defineTools({ add }), ...definePrompts({}), ...defineResources({ readme: { uri: 'docs://readme', read: () => 'v1' } }) })
    const client = injectClient(app, { era })
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name)

    app.mcp.tools.add('shout', { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say.toUpperCase()) })
    t.strictSame(await names(), ['add', 'shout'])
    t.strictSame((await client.callTool('shout', { say: 'hi' })).content, [{ type: 'text', text: 'HI' }])
    t.match((await client.callTool('shout', { say: 1 })), { isError: true }, 'validated like a registered tool')

    app.mcp.tools.update('shout', { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say + '!') })
    t.strictSame(await names(), ['add', 'shout'], 'an update keeps its place')
    t.strictSame((await client.callTool('shout', { say: 'hi' })).content, [{ type: 'text', text: 'hi!' }])

    await app.mcp.tools.disable('add')
    t.strictSame(await names(), ['shout'], 'a disabled tool is not listed')
    await t.rejects(client.callTool('add', { a: 1, b: 2 }), { code: -32602, message: 'Unknown tool: add' }, 'nor callable')
    t.equal(app.mcp.tools.isEnabled('add'), false)
    await app.mcp.tools.enable('add')
    t.strictSame(await names(), ['add', 'shout'], 'enabled again, in its place')
    await app.mcp.tools.remove('shout')
    t.strictSame(await names(), ['add'])
    await t.rejects(client.callTool('shout', { say: 'x' }), { code: -32602 })

    app.mcp.prompts.add('later', { handler: () => 'added later' })
    t.strictSame((await client.listPrompts()).prompts.map((p) => p.name), ['later'])
    app.mcp.resources.update('readme', { uri: 'docs://readme', read: () => 'v2' })
    t.strictSame((await client.readResource('docs://readme')).contents, [{ uri: 'docs://readme', text: 'v2' }])

    t.throws(() => app.mcp.tools.add('add', add), { code: 'FST_MCP_DUPLICATE_DEFINITION', message: /tool "add" is defined twice: defineTools at .*catalog\.test\.ts:\d+ and fastify\.mcp\.tools\.add at .*catalog\.test\.ts:\d+/ })
    t.throws(() => app.mcp.tools.add('bad name!', add), { code: 'FST_MCP_INVALID_DEFINITION' })
    t.throws(() => app.mcp.tools.add('x', { handler: 42 } as never), { code: 'FST_MCP_INVALID_DEFINITION' })
    t.throws(() => app.mcp.tools.update('nope', add), { code: 'FST_MCP_UNKNOWN_DEFINITION' })
    t.throws(() => app.mcp.tools.remove('nope'), { code: 'FST_MCP_UNKNOWN_DEFINITION' })
  })
}

t.test('adding to a kind the module did not define is explained, not ignored', async (t) => {
  const { app } = await serve(t, defineTools({ add }))
  t.throws(() => app.mcp.prompts.add('p', { handler: () => 'x' }), { code: 'FST_MCP_NOT_ADVERTISED', message: /definePrompts\(\{\}\)/ })
  t.throws(() => app.mcp.resources.add('r', { uri: 'a://b', read: () => 'x' }), { code: 'FST_MCP_NOT_ADVERTISED' })
  t.strictSame(app.mcp.prompts.names(), [])
  t.notOk('prompts' in app.mcp.capabilities.modern, 'the capability stays unadvertised')
  const { app: other } = await serve(t, { ...defineTools({}), ...definePrompts({}) })
  t.throws(() => other.mcp.prompts.add('p', { arguments: Type.Object({ x: Type.String() }), complete: { x: () => [] }, handler: () => '' }), { code: 'FST_MCP_NOT_ADVERTISED', message: /completion/ })
  t.strictSame(other.mcp.capabilities.modern.tools, { listChanged: true }, 'an empty group advertises its kind')
  t.strictSame(other.mcp.capabilities.legacy.tools, { listChanged: true }, 'legacy: told on the standalone GET stream')
})

t.test('runtime changes reach the listen streams that asked for them', async (t) => {
  const { app, port } = await startApp({ server: { ...defineTools({ add }), ...definePrompts({ greet }), ...defineResources({ readme: { uri: 'docs://readme', read: () => 'v1' } }) }, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const tools = await openListen(t, port, { toolsListChanged: true })
  const everything = await openListen(t, port, { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, resourceSubscriptions: ['docs://readme'] })
  const method = async (reader: SseReader) => (await reader.nextMessage()).method as string

  await app.mcp.tools.disable('add')
  t.equal(await method(tools), 'notifications/tools/list_changed')
  t.equal(await method(everything), 'notifications/tools/list_changed')
  app.mcp.prompts.add('more', { handler: () => 'x' })
  t.equal(await method(everything), 'notifications/prompts/list_changed')
  app.mcp.resources.update('readme', { uri: 'docs://readme', read: () => 'v2' })
  t.equal(await method(everything), 'notifications/resources/list_changed')
  t.equal(await method(everything), 'notifications/resources/updated', 'its content may have changed')
  await app.mcp.tools.disable('add')
  app.mcp.tools.add('x', { handler: () => text('x') })
  t.equal(await method(tools), 'notifications/tools/list_changed', 'disabling twice changes nothing and says nothing')
  t.equal(tools.events.filter((e) => e.data?.method === 'notifications/tools/list_changed').length, 2)
})

t.test('limits.listPageSize: stable cursors through changes, invalid cursors -32602, pages are prepared', async (t) => {
  const many: Record<string, ToolDefinition> = {}
  for (let i = 0; i < 25; i++) many[`t${i}`] = { handler: () => text(String(i)) }
  const { app } = await serve(t, defineTools(many), { limits: { listPageSize: 10 } })
  const client = injectClient(app)
  const first = await client.listTools()
  t.equal(first.tools.length, 10)
  t.type(first.nextCursor, 'string')
  t.equal((await client.listTools()).nextCursor, first.nextCursor, 'the same cursor for the same page')
  // Between pages: one already served removed, one not yet served removed, one added.
  await app.mcp.tools.remove('t3')
  await app.mcp.tools.remove('t15')
  app.mcp.tools.add('late', { handler: () => text('late') })
  const seen = first.tools.map((tool) => tool.name)
  let cursor = first.nextCursor
  while (cursor !== undefined) {
    const page = await client.listTools(cursor)
    seen.push(...page.tools.map((tool) => tool.name))
    cursor = page.nextCursor
  }
  const expected = [...Array.from({ length: 25 }, (_, i) => `t${i}`).filter((n) => n !== 't15'), 'late']
  t.strictSame(seen, expected, 'nothing skipped, nothing repeated; the added one comes last')
  for (const bad of ['nope', 'dG9vbHM6MA', Buffer.from('prompts:3').toString('base64url'), 'x'.repeat(100)]) {
    await t.rejects(client.listTools(bad), { code: -32602 }, `cursor ${bad.slice(0, 12)}`)
  }
  const { app: unpaged } = await serve(t, defineTools(many))
  t.equal((await injectClient(unpaged).listTools()).tools.length, 25, 'off by default')
  t.equal((await injectClient(unpaged).listTools()).nextCursor, undefined)
})

t.test('the Mcp-Param headers of a tool added at runtime are checked, after calls that saw none', async (t) => {
  const { app } = await serve(t, defineTools({ add }))
  const client = injectClient(app)
  t.strictSame((await client.callTool('add', { a: 1, b: 2 })).structuredContent, { sum: 3 }, 'no tool is annotated yet')
  app.mcp.tools.add('regional', { input: Type.Object({ region: Type.String({ 'x-mcp-header': 'Region' }) }), handler: ({ region }) => text(region) })
  await t.rejects(client.callTool('regional', { region: 'eu' }), { code: -32020 }, 'a client with the old list sends no header: refused')
  t.strictSame((await injectClient(app).callTool('regional', { region: 'eu' })).content, [{ type: 'text', text: 'eu' }], 'a client with the new list mirrors it')
  const res = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'regional', 'mcp-param-region': 'us' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'regional', arguments: { region: 'eu' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }
  })
  t.equal(res.json().error?.code, -32020, 'a header that disagrees with the arguments is refused')
})

t.test('limits.listPageSize pages prompts, resources and templates too; a cursor of one list is refused by another', async (t) => {
  const prompts: Record<string, { handler: () => string }> = {}
  const resources: Record<string, { uri?: string, uriTemplate?: string, read: () => string }> = {}
  for (let i = 0; i < 7; i++) {
    prompts[`p${i}`] = { handler: () => 'x' }
    resources[`r${i}`] = { uri: `r://${i}`, read: () => 'x' }
    resources[`t${i}`] = { uriTemplate: `t://${i}/{id}`, read: () => 'x' }
  }
  const { app } = await serve(t, { ...definePrompts(prompts), ...defineResources(resources as never) }, { limits: { listPageSize: 3 } })
  for (const era of ['modern', 'legacy'] as const) {
    const client = injectClient(app, { era })
    const walk = async (list: (cursor?: string) => Promise<any>, field: string, key: string): Promise<string[]> => {
      const out: string[] = []
      let cursor: string | undefined
      let pages = 0
      do {
        const page = await list(cursor)
        t.ok(page[field].length <= 3)
        out.push(...page[field].map((item: Record<string, string>) => item[key]))
        cursor = page.nextCursor
        pages++
      } while (cursor !== undefined)
      t.equal(pages, 3, `${era} ${field}: three pages`)
      return out
    }
    t.strictSame(await walk((c) => client.listPrompts(c), 'prompts', 'name'), Object.keys(prompts))
    t.strictSame(await walk((c) => client.listResources(c), 'resources', 'uri'), Object.values(resources).flatMap((r) => r.uri ?? []))
    t.strictSame(await walk((c) => client.listResourceTemplates(c), 'resourceTemplates', 'uriTemplate'), Object.values(resources).flatMap((r) => r.uriTemplate ?? []))
    const promptCursor = (await client.listPrompts()).nextCursor as string
    await t.rejects(client.listResources(promptCursor), { code: -32602 }, `${era}: a prompts cursor is not a resources cursor`)
  }
})
