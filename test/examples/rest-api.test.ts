/**
 * `npm run start:rest`: the bookshelf REST API exposed as tools, in its own
 * process, driven by the official SDK client in both eras (auto negotiation
 * against a dual deployment lands modern; pinned 2025-11-25 and a legacy
 * deployment land legacy). The same API over plain HTTP answers the same data.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t from 'tap'
import { startExample } from '../helpers/server-process.js'
import { REPO_ROOT } from '../helpers/paths.js'

const KEY = 'test-key'

async function startRest (era: string): Promise<{ base: URL, close: () => Promise<void> }> {
  const started = await startExample(REPO_ROOT, 'rest-api.ts', { MCP_ERA: era, LOG_LEVEL: 'info', API_KEY: KEY }, (output) => {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
    return match === null ? undefined : new URL(match[1] as string)
  })
  return { base: started.ready, close: started.stop }
}

async function connect (url: URL, mode: 'auto' | 'legacy', key?: string): Promise<Client> {
  const client = new Client({ name: 'rest-example-test', version: '1.0.0' }, { versionNegotiation: { mode } })
  await client.connect(new StreamableHTTPClientTransport(url, key === undefined ? {} : { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return client
}

for (const [era, mode, expected] of [['dual', 'auto', '2026-07-28'], ['dual', 'legacy', '2025-11-25'], ['legacy', 'auto', '2025-11-25']] as const) {
  t.test(`MCP_ERA=${era}, client mode ${mode}: the REST routes are tools`, async (t) => {
    const example = await startRest(era)
    t.teardown(example.close)
    const client = await connect(new URL('/mcp', example.base), mode, KEY)
    t.teardown(() => client.close())
    t.equal(client.getNegotiatedProtocolVersion(), expected, `speaks ${expected}`)

    const { tools } = await client.listTools()
    t.same(tools.map((tool) => tool.name), ['search_books', 'get_book', 'add_book', 'lend_book'])
    const search = tools[0]!
    t.equal(search.title, 'Search books')
    t.match(search.description, /filtered by author/)
    t.match(search.inputSchema, { type: 'object', properties: { author: { type: 'string' }, available: { type: 'boolean' }, limit: { type: 'integer', default: 10 } } })
    t.same(search.annotations, { readOnlyHint: true })

    // structuredContent is checked by the SDK against the listed outputSchema.
    const found = await client.callTool({ name: 'search_books', arguments: { author: 'le guin' } })
    t.equal(found.isError, undefined)
    t.match(found.structuredContent, { total: 2, books: [{ title: 'A Wizard of Earthsea' }, { title: 'The Dispossessed' }] })
    const overHttp = await fetch(new URL('/api/books?author=le%20guin', example.base), { headers: { authorization: `Bearer ${KEY}` } })
    t.same(await overHttp.json(), found.structuredContent, 'the same answer as over HTTP')

    const added = await client.callTool({ name: 'add_book', arguments: { title: 'Parable of the Sower', author: 'Octavia E. Butler', year: 1993 } })
    t.match(added.structuredContent, { id: 4, title: 'Parable of the Sower', available: true })
    const lent = await client.callTool({ name: 'lend_book', arguments: { id: 4, borrower: 'Sam' } })
    t.match(lent.structuredContent, { id: 4, available: false })
    const again = await client.callTool({ name: 'lend_book', arguments: { id: 4, borrower: 'Kim' } })
    t.same({ isError: again.isError, content: again.content }, { isError: true, content: [{ type: 'text', text: 'HTTP 409 Conflict: "Parable of the Sower" is already lent out' }] })
    const invalid = await client.callTool({ name: 'add_book', arguments: { title: '', author: 'x', year: 1 } })
    t.same(invalid.content, [{ type: 'text', text: 'HTTP 400 Bad Request: body/title must NOT have fewer than 1 characters' }])
    const missing = await client.callTool({ name: 'get_book', arguments: { id: 99 } })
    t.same(missing.content, [{ type: 'text', text: 'HTTP 404 Not Found: no book has id 99' }])

    // Without the key the API's own auth hook refuses the route (the MCP endpoint itself is open here).
    const anonymous = await connect(new URL('/mcp', example.base), mode)
    t.teardown(() => anonymous.close())
    const refused = await anonymous.callTool({ name: 'get_book', arguments: { id: 1 } })
    t.same({ isError: refused.isError, content: refused.content }, { isError: true, content: [{ type: 'text', text: 'HTTP 401 Unauthorized: send the API key as "Authorization: Bearer <key>"' }] })
  })
}
