/**
 * The README's example, run the way `npm start` runs it (its own process,
 * HOST/PORT/MCP_ERA from the environment), driven by the official SDK client:
 * every capability it advertises is exercised (with validate.results on, so
 * every result is checked against its wire schema), and a note added by one client
 * reaches another client's listen stream.
 */
import { Client, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t from 'tap'
import { startExample } from '../helpers/server-process.js'
import { REPO_ROOT } from '../helpers/paths.js'

async function startNotesExample (era: string): Promise<{ url: URL, close: () => Promise<void> }> {
  const started = await startExample(REPO_ROOT, 'server.ts', { MCP_ERA: era, LOG_LEVEL: 'info', VALIDATE_RESULTS: '1' }, (output) => {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
    return match === null ? undefined : new URL('/mcp', match[1])
  })
  return { url: started.ready, close: started.stop }
}

async function connect (url: URL, mode: 'auto' | { pin: string }): Promise<Client> {
  const client = new Client({ name: 'example-test', version: '1.0.0' }, { versionNegotiation: { mode } })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

for (const era of ['dual', 'legacy', 'modern']) {
  t.test(`npm start (MCP_ERA=${era}): tools, resources, templates, prompts and completions through the SDK client`, async (t) => {
    const example = await startNotesExample(era)
    t.teardown(example.close)
    const client = await connect(example.url, 'auto')
    t.teardown(() => client.close())

    const caps = client.getServerCapabilities()
    t.ok(caps?.tools && caps.resources && caps.prompts && caps.completions, 'tools, resources, prompts and completions advertised')
    t.equal(caps?.tools?.listChanged, true, 'listChanged in every era (legacy clients hear changes on the GET stream)')

    const { tools } = await client.listTools()
    t.same(tools.map((tool) => tool.name), ['add_note', 'search_notes', 'word_count'])

    const count = await client.callTool({ name: 'word_count', arguments: { text: 'one two  three' } })
    t.same(count.structuredContent, { words: 3 })
    const found = await client.callTool({ name: 'search_notes', arguments: { query: 'milk' } })
    t.match(found.content, [{ type: 'resource_link', uri: 'notes://note/2' }])
    const bad = await client.callTool({ name: 'add_note', arguments: { title: '' } })
    t.equal(bad.isError, true, 'bad arguments are a tool error, not a protocol error')
    t.match(bad.content, [{ type: 'text', text: 'Invalid arguments for tool "add_note": body: required property missing (expected string); title: expected string length greater or equal to 1' }],
      'the error names each failing argument')

    const { resources } = await client.listResources()
    t.ok(resources.length >= 2)
    const read = await client.readResource({ uri: 'notes://note/1' })
    t.match(read.contents[0], { uri: 'notes://note/1', mimeType: 'text/markdown', text: /# Welcome/ })
    await t.rejects(client.readResource({ uri: 'notes://note/999' }), 'an unknown note is a protocol error')
    const { resourceTemplates } = await client.listResourceTemplates()
    t.equal(resourceTemplates[0]?.uriTemplate, 'notes://note/{id}')

    const { prompts } = await client.listPrompts()
    t.same(prompts.map((p) => p.name), ['summarise_note'])
    const prompt = await client.getPrompt({ name: 'summarise_note', arguments: { id: '2' } })
    t.match(prompt.messages[0], { role: 'user', content: { type: 'text', text: /Milk, eggs, coffee/ } })

    const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'summarise_note' }, argument: { name: 'id', value: '' } })
    t.same(completion.completion.values, ['1', '2'])

    // Logs reach the client that asked for them, in either era, with no logging code in the example.
    t.same(caps?.logging, {}, 'logging advertised')
    const logged: unknown[] = []
    client.setNotificationHandler('notifications/message', (n) => { logged.push(n.params) })
    if (client.getProtocolEra() === 'legacy') {
      await client.setLoggingLevel('info')
      await client.callTool({ name: 'add_note', arguments: { title: 'Logged', body: 'x' } })
    } else {
      await client.callTool({ name: 'add_note', arguments: { title: 'Logged', body: 'x' }, _meta: { [LOG_LEVEL_META_KEY]: 'info' } })
    }
    t.match(logged, [{ level: 'info', logger: 'notes', data: { added: /^\d+$/ } }], `add_note's ctx.log reached the ${client.getProtocolEra() ?? ''} client`)
  })
}

t.test('npm start: a note added by one client reaches another client\'s listen stream', async (t) => {
  const example = await startNotesExample('dual')
  t.teardown(example.close)
  const listener = await connect(example.url, { pin: '2026-07-28' })
  t.teardown(() => listener.close())
  let changed: () => void = () => {}
  const arrived = new Promise<void>((resolve) => { changed = resolve })
  listener.setNotificationHandler('notifications/resources/list_changed', () => changed())
  const subscription = await listener.listen({ resourcesListChanged: true, toolsListChanged: true })
  t.same(subscription.honoredFilter, { resourcesListChanged: true, toolsListChanged: true })

  const writer = await connect(example.url, 'auto')
  t.teardown(() => writer.close())
  const added = await writer.callTool({ name: 'add_note', arguments: { title: 'Ideas', body: 'Write tests.' } })
  t.match(added.content, [{ type: 'resource_link', name: 'Ideas' }])
  await arrived
  t.pass('notifications/resources/list_changed arrived')
})
