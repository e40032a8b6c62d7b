/**
 * Routes declared before the plugin (issue 34, item 2): its onRoute hook never
 * sees them, so a route marked `config.mcp` there would vanish. With no route
 * tool at all `ready()` fails naming them and the fix; with some, a warning
 * names them. lib/routes/declared-routes.ts reads them from the router's tree.
 */
import Fastify from 'fastify'
import t from 'tap'
import { mcpCapabilities } from '../../lib/index.js'
import { routesDeclaredSoFar } from '../../lib/routes/declared-routes.js'
import { injectClient } from '../../lib/testing/index.js'

const SERVER_INFO = { name: 'declared-routes-test', version: '1.0.0' }

t.test('with no route tool, ready() fails naming the routes declared before and the fix', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/books/:id', { config: { mcp: true } }, async () => 'never a tool')
  await app.register(async (api) => {
    api.post('/', { config: { mcp: { name: 'add_book' } } }, async () => 'never a tool either')
  }, { prefix: '/v1/books' })
  await app.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
  const error = await app.ready().then(() => undefined, (err: unknown) => err as Error & { code?: string })
  t.equal(error?.code, 'FST_MCP_ROUTES_DECLARED_BEFORE')
  t.match(error?.message, /GET \/books\/:id/, 'names the root route')
  t.match(error?.message, /POST \/v1\/books/, 'names the prefixed route of a context registered before')
  t.match(error?.message, /Register the plugin \(with await\) before your routes/, 'says the fix')
})

t.test('with some route tools, a warning names the routes declared before, once, at ready', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  app.get('/early/:id', { config: { mcp: true } }, async () => 'never a tool')
  await app.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
  app.get('/late', { config: { mcp: true } }, async () => 'a tool')
  await app.ready()
  const warnings = lines.filter((line) => String(line.msg).includes('declared before the plugin'))
  t.equal(warnings.length, 1, 'one warning')
  t.strictSame(warnings[0]?.routes, ['GET /early/:id'])
  t.strictSame((await injectClient(app, { era: 'modern' }).listTools()).tools.map((tool) => tool.name), ['get_late'])
})

t.test('the plugin registered first: no error, no warning', async (t) => {
  const lines: string[] = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { lines.push(line) } } } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: { listPrompts: () => ({ prompts: [] }), getPrompt: () => ({ messages: [] }) }, serverInfo: SERVER_INFO, routes: true })
  app.get('/health', async () => 'ok')
  await app.ready()
  t.strictSame(lines, [])
})

t.test('without the routes option, routes declared before are none of its business', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/health', async () => 'ok')
  await app.register(mcpCapabilities, { server: { listPrompts: () => ({ prompts: [] }), getPrompt: () => ({ messages: [] }) }, serverInfo: SERVER_INFO })
  await t.resolves(async () => { await app.ready() }, 'ready() resolves')
})

t.test('routesDeclaredSoFar reads full paths from the radix tree, HEAD twins left out', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.get('/files/*', async () => 1)
  app.get('/files/a', async () => 1)
  app.get('/range/:from-:to', async () => 1)
  app.route({ method: ['PUT', 'PATCH'], url: '/books/:id', handler: async () => 1 })
  app.head('/only-head', async () => 1)
  t.strictSame(routesDeclaredSoFar(app).sort(), ['GET /files/*', 'GET /files/a', 'GET /range/:from-:to', 'HEAD /only-head', 'PUT,PATCH /books/:id'])
  t.strictSame(routesDeclaredSoFar(Fastify()), [])
})
