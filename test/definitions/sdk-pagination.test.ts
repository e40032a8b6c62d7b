/**
 * The official SDK client pages through a large catalogue served with
 * `limits.listPageSize`, in both eras: every tool arrives once, in order, and a
 * cursor the server never made is refused with -32602. (The by-hand walk
 * starts from the first page's cursor, read in process: the official client
 * walks every page itself when given none.)
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t from 'tap'
import { defineTools, type ToolDefinition } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { startApp } from '../streams/helpers.js'

const COUNT = 2500
const PAGE = 100

const tools: Record<string, ToolDefinition> = {}
for (let i = 0; i < COUNT; i++) tools[`tool_${i}`] = { description: `Tool number ${i}`, handler: () => ({ content: [{ type: 'text', text: String(i) }] }) }

for (const version of ['2026-07-28', '2025-11-25'] as const) {
  t.test(`official client (${version}) pages through ${COUNT} tools`, async (t) => {
    const { app, port } = await startApp({ server: defineTools(tools), limits: { listPageSize: PAGE } }, undefined, { forceCloseConnections: true })
    t.teardown(() => app.close())
    const client = new Client({ name: 'pagination-test', version: '1.0.0' }, version === '2026-07-28' ? { versionNegotiation: { mode: { pin: version } } } : {})
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
    t.teardown(() => client.close())
    // Without a cursor the client walks every page itself, following nextCursor.
    const all = await client.listTools()
    t.strictSame(all.tools.map((tool) => tool.name), Object.keys(tools), 'every tool once, in order, through the pages')
    t.equal(all.tools[7]?.description, 'Tool number 7')
    // With a cursor it returns one page: walk from the second page on by hand.
    const names = all.tools.slice(0, PAGE).map((tool) => tool.name)
    let cursor: string | undefined = (await injectClient(app).listTools()).nextCursor
    let pages = 1
    while (cursor !== undefined) {
      const page = await client.listTools({ cursor })
      t.ok(page.tools.length <= PAGE, `page ${pages} holds at most ${PAGE}`)
      names.push(...page.tools.map((tool) => tool.name))
      cursor = page.nextCursor
      pages++
    }
    t.equal(pages, COUNT / PAGE)
    t.strictSame(names, Object.keys(tools), 'the same by hand')
    await t.rejects(client.listTools({ cursor: 'not-a-cursor' }), { code: -32602 })
    await t.rejects(client.listTools({ cursor: Buffer.from(`tools:${PAGE}`).toString('base64url') }), { code: -32602 }, 'a cursor naming a page, but not sealed by the server')
  })
}
