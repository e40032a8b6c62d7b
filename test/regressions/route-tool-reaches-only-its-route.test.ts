/**
 * A route-backed tool's request is served only by the route the tool was
 * made from (issue 36, item 1). The path its arguments make went to
 * whatever route the router picked: a static sibling (`/items/export`
 * beside `/items/:id`), a sibling guarded by its context's MCP preHandler,
 * a non-tool route under a wildcard, the app's catch-all for a value longer
 * than the router's maxParamLength, a regex twin with the same parameter.
 * Each is now a tool error naming the problem, and the other route's
 * handler never runs.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import mcpCapabilities, { ErrorCode, McpError } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

const SERVER_INFO = { name: 'only-its-route', version: '1.0.0' }

async function appWith (t: Test, declare: (app: FastifyInstance, ran: string[]) => void | Promise<void>): Promise<{ app: FastifyInstance, ran: string[] }> {
  const app = Fastify()
  const ran: string[] = []
  await app.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
  await declare(app, ran)
  await app.ready()
  t.teardown(() => app.close())
  return { app, ran }
}

async function refused (t: Test, app: FastifyInstance, tool: string, args: Record<string, unknown>, problem: RegExp): Promise<void> {
  const result = await injectClient(app, { era: 'modern' }).callTool(tool, args)
  t.equal(result.isError, true, 'a tool error')
  t.match((result.content as Array<{ text: string }>)[0]?.text, problem, 'naming the problem')
}

t.test('a static sibling (GET /items/export beside GET /items/:id) is not reached', async (t) => {
  const { app, ran } = await appWith(t, (app, ran) => {
    app.get('/items/:id', { config: { mcp: { name: 'get_item' } } }, async (request) => { ran.push('get_item'); return request.params })
    app.get('/items/export', { config: { mcp: { name: 'export_items', scopes: ['admin'] } } }, async () => { ran.push('export'); return { everything: true } })
  })
  await refused(t, app, 'get_item', { id: 'export' }, /get_item.*served by another route than GET \/items\/:id/)
  t.strictSame(ran, [], 'the export handler never ran')
  t.match(await injectClient(app, { era: 'modern' }).callTool('get_item', { id: '7' }), { structuredContent: undefined, content: [{ text: '{"id":"7"}' }] }, 'its own values still reach it')
})

t.test('a sibling declared in a context whose MCP preHandler refuses non-admins is not reached', async (t) => {
  const { app, ran } = await appWith(t, async (app, ran) => {
    app.get('/docs/:id', { config: { mcp: { name: 'get_doc' } } }, async (request) => { ran.push('get_doc'); return request.params })
    await app.register(async (admin) => {
      admin.mcp.addHook('preHandler', () => { throw new McpError(ErrorCode.InvalidParams, 'admins only') })
      admin.get('/docs/salaries', { config: { mcp: { name: 'salaries' } } }, async () => { ran.push('salaries'); return { ceo: 1e6 } })
    })
  })
  await t.rejects(injectClient(app, { era: 'modern' }).callTool('salaries', {}), { message: /admins only/ }, 'the guarded tool refuses')
  await refused(t, app, 'get_doc', { id: 'salaries' }, /get_doc/)
  t.strictSame(ran, [], 'the guarded handler never ran')
})

t.test('a wildcard tool does not reach a non-tool route under it', async (t) => {
  const { app, ran } = await appWith(t, (app, ran) => {
    app.get('/files/*', { config: { mcp: { name: 'read_file' } } }, async (request) => { ran.push('read_file'); return (request.params as Record<string, string>)['*'] })
    app.get('/files/private/:name', async () => { ran.push('private'); return 'root:x:0:0' })
  })
  await refused(t, app, 'read_file', { '*': 'private/passwd' }, /read_file.*GET \/files\/\*/)
  t.strictSame(ran, [], 'the private route never ran')
  t.match(await injectClient(app, { era: 'modern' }).callTool('read_file', { '*': 'public/a b.txt' }), { content: [{ text: 'public/a b.txt' }] })
})

t.test('a value longer than the router\'s maxParamLength does not reach the catch-all', async (t) => {
  const { app, ran } = await appWith(t, (app, ran) => {
    app.get('/items/:id', { config: { mcp: { name: 'get_item' } } }, async (request) => { ran.push('get_item'); return request.params })
    app.get('/*', async () => { ran.push('catch-all'); return 'the SPA shell' })
  })
  await refused(t, app, 'get_item', { id: 'x'.repeat(150) }, /get_item/)
  t.strictSame(ran, [], 'the catch-all never ran')
})

t.test('the request itself is checked: a twin with the same parameter (a regex route) is refused on the request', async (t) => {
  // The router gives back the same parameter either way, so only the check on the request can tell.
  const { app, ran } = await appWith(t, async (app, ran) => {
    app.get('/orders/:id', { config: { mcp: { name: 'get_order' } }, schema: { params: Type.Object({ id: Type.String() }) } }, async (request) => { ran.push('get_order'); return request.params })
    app.get('/orders/:id(^\\d+)', async () => { ran.push('numeric twin'); return { internal: true } })
  })
  await refused(t, app, 'get_order', { id: '42' }, /get_order.*route GET \/orders\/:id\(\^\\d\+\), not GET \/orders\/:id/)
  t.strictSame(ran, [], 'the twin\'s handler never ran')
})
