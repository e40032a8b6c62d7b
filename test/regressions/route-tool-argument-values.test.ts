/**
 * Values of a route-backed tool's arguments that no HTTP client could send
 * or that change where the route splits its path (issue 36, items 9 and 10;
 * issue 34, item 4):
 *
 * - a header argument holding CR, LF, NUL (any byte outside an RFC 9110
 *   field value) reached the route's request as it was; it is refused as
 *   invalid arguments and the route never runs;
 * - in `GET /range/:from-:to`, `{ from: '1', to: '2-3' }` reached the route
 *   as from "1-2", to "3"; a value holding its segment's separator is refused;
 * - a querystring or body property with a `default` was listed as required;
 *   it is not (the route's validator fills it in), at any depth.
 */
import Ajv2020 from 'ajv/dist/2020.js'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import { Type } from '@sinclair/typebox'
import mcpCapabilities from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

async function serve (t: Test) {
  const app = Fastify()
  const seen: unknown[] = []
  await app.register(mcpCapabilities, { server: {}, serverInfo: { name: 'argument-values', version: '1.0.0' }, routes: true })
  app.get('/notes', { config: { mcp: { name: 'notes', headers: ['x-tenant'] } } }, async (request) => {
    seen.push(request.headers['x-tenant'])
    return { tenant: request.headers['x-tenant'] }
  })
  app.get('/range/:from-:to', { config: { mcp: { name: 'range' } } }, async (request) => {
    seen.push(request.params)
    return request.params
  })
  app.post('/search', {
    config: { mcp: { name: 'search' } },
    schema: {
      querystring: Type.Object({ limit: Type.Integer({ default: 20 }), q: Type.String() }),
      body: Type.Object({ filter: Type.Object({ sort: Type.String({ default: 'asc' }), field: Type.String() }), page: Type.Integer({ default: 1 }) })
    }
  }, async (request) => {
    seen.push({ query: request.query, body: request.body })
    return { ok: true }
  })
  await app.ready()
  t.teardown(() => app.close())
  return { app, seen }
}

t.test('header arguments with CR, LF, NUL or other controls are invalid arguments', async (t) => {
  const { app, seen } = await serve(t)
  const client = injectClient(app, { era: 'modern' })
  for (const value of ['a\r\nset-cookie: x=1', 'a\nb', 'a\u0000b', 'a\u007fb', 'a\u0100b']) {
    const result = await client.callTool('notes', { 'x-tenant': value })
    t.equal(result.isError, true, `${JSON.stringify(value)} is refused`)
    t.match((result.content as Array<{ text: string }>)[0]?.text, /Invalid arguments.*x-tenant: a header value cannot hold control characters/)
  }
  t.strictSame(seen, [], 'the route never ran')
  t.match(await client.callTool('notes', { 'x-tenant': 'acme\tcorp é' }), { structuredContent: undefined, content: [{ text: '{"tenant":"acme\\tcorp é"}' }] }, 'tab, space and Latin-1 pass')
})

t.test('a value holding the separator of its path segment is refused', async (t) => {
  const { app, seen } = await serve(t)
  const client = injectClient(app, { era: 'modern' })
  const moved = await client.callTool('range', { from: '1', to: '2-3' })
  t.equal(moved.isError, true)
  t.match((moved.content as Array<{ text: string }>)[0]?.text, /to: cannot hold "-", which separates the parameters of its path segment/)
  t.strictSame(seen, [], 'the route never ran with a moved split')
  t.match(await client.callTool('range', { from: '1', to: '3' }), { content: [{ text: '{"from":"1","to":"3"}' }] })
})

t.test('a querystring or body property with a default is not listed as required', async (t) => {
  const { app, seen } = await serve(t)
  const client = injectClient(app, { era: 'modern' })
  const tool = (await client.listTools()).tools.find((tool) => tool.name === 'search')!
  const input = tool.inputSchema as unknown as { required?: string[], properties: Record<string, { required?: string[] }> }
  t.strictSame(input.required, ['q', 'filter'], 'limit and page have defaults')
  t.strictSame(input.properties.filter!.required, ['field'], 'nested too')
  const Ajv = Ajv2020.default
  const clientSide = new Ajv({ strict: false }).compile(tool.inputSchema)
  t.ok(clientSide({ q: 'x', filter: { field: 'name' } }), 'a client reading the listed schema may leave them out')
  t.notOk((await client.callTool('search', { q: 'x', filter: { field: 'name' } })).isError)
  t.strictSame(JSON.parse(JSON.stringify(seen)), [{ query: { q: 'x', limit: 20 }, body: { filter: { field: 'name', sort: 'asc' }, page: 1 } }], 'and the route fills them in')
})
