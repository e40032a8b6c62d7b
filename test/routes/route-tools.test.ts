/**
 * Routes as tools: routes declared after the plugin with `config.mcp`, in any
 * encapsulated context and under any prefix, are listed as tools whose
 * schemas come from the route's (valid 2020-12, valid per the spec's Tool),
 * and a call runs the route through Fastify's lifecycle in-process: its
 * hooks, validation, serializer and error handler apply; 4xx answers are
 * tool errors with the route's message, 5xx ones tool errors without
 * internals; nothing of the MCP request reaches the route unasked.
 */
import { Type } from '@sinclair/typebox'
import { Ajv2020 } from 'ajv/dist/2020.js'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { mcpCapabilities } from '../../lib/index.js'
import { defineTools } from '../../lib/definitions/tools.js'
import { injectClient } from '../../lib/testing/index.js'
import { specValidator } from '../helpers/spec-schemas.js'
import type { McpCapabilitiesOptions } from '../../lib/options.js'

const SERVER_INFO = { name: 'routes-test', version: '1.0.0' }
/** A module serving something other than tools (a module with no handler at all is refused). */
const PROMPTS_ONLY = { listPrompts: () => ({ prompts: [] }), getPrompt: () => ({ messages: [] }) }

interface Seen { headers: Record<string, unknown>, ip: string, url: string }

/** An API with an auth hook in its own context under /api, and a public route at the root. */
async function api (options: Partial<McpCapabilitiesOptions> = {}): Promise<{ app: FastifyInstance, seen: Seen[], logs: string[] }> {
  const logs: string[] = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { logs.push(line) } } } })
  const seen: Seen[] = []
  await app.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: { forwardHeaders: ['authorization'] }, ...options })
  app.addSchema({ $id: 'User', type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { $ref: 'Tags#' } }, required: ['id', 'name'] })
  app.addSchema({ $id: 'Tags', type: 'array', items: { type: 'string' } })
  const users = new Map([[7, { id: 7, name: 'Ada', tags: ['admin'], password: 'never serialised' }]])
  app.register(async (scope) => {
    scope.addHook('onRequest', async (request, reply) => {
      seen.push({ headers: { ...request.headers }, ip: request.ip, url: request.url })
      if (request.headers.authorization !== 'Bearer api-key') return reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'a valid API key is required' })
    })
    scope.setErrorHandler((err: Error & { statusCode?: number }, _request, reply) => {
      const status = err.statusCode ?? 500
      reply.code(status).send({ statusCode: status, message: status >= 500 ? `database said: ${err.message}` : err.message })
    })
    scope.get('/users/:id', {
      config: { mcp: true },
      schema: {
        summary: 'Get a user',
        description: 'One user by id.',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({ fields: Type.Optional(Type.Array(Type.String())) }),
        response: { 200: { $ref: 'User#' } }
      }
    }, async (request) => {
      const user = users.get((request.params as { id: number }).id)
      if (user === undefined) throw Object.assign(new Error(`user ${(request.params as { id: number }).id} does not exist`), { statusCode: 404 })
      return { ...user, fields: (request.query as { fields?: string[] }).fields }
    })
    scope.post('/users', {
      config: { mcp: { name: 'create_user', title: 'Create a user', annotations: { openWorldHint: false } } },
      schema: {
        body: Type.Object({ name: Type.String({ minLength: 1 }), tags: Type.Optional(Type.Array(Type.String())) }, { additionalProperties: false }),
        response: { 201: { $ref: 'User#' } }
      }
    }, async (request, reply) => {
      const body = request.body as { name: string, tags?: string[] }
      const user = { id: users.size + 7, name: body.name, tags: body.tags ?? [], password: 'x' }
      users.set(user.id, user)
      reply.code(201)
      return user
    })
    scope.delete('/users/:id', { config: { mcp: true } }, async (request, reply) => {
      users.delete(Number((request.params as { id: string }).id))
      reply.code(204).send()
    })
    scope.get('/crash', { config: { mcp: true } }, async () => {
      throw new Error('connection string postgres://admin:hunter2@db')
    })
  }, { prefix: '/api' })
  app.put('/notes/:slug', {
    config: { mcp: { body: 'note', headers: ['x-tenant'] } },
    schema: {
      params: { type: 'object', properties: { slug: { type: 'string', pattern: '^[a-z-]+$' } } },
      headers: { type: 'object', properties: { 'X-Tenant': { type: 'string', enum: ['a', 'b'] } }, required: ['X-Tenant'] },
      body: { type: 'array', items: { type: 'string' } },
      response: { 200: { type: 'integer' } }
    }
  }, async (request) => {
    seen.push({ headers: { ...request.headers }, ip: request.ip, url: request.url })
    return (request.body as string[]).length
  })
  app.get('/plain', async () => 'not a tool')
  await app.ready()
  t.teardown(() => app.close())
  return { app, seen, logs }
}

/** A tool result without the modern era's envelope fields (resultType, _meta.serverInfo). */
function bare (result: Record<string, unknown>): Record<string, unknown> {
  const { resultType: _type, _meta: _m, ...rest } = result
  return rest
}

const ajv = new Ajv2020({ strict: false })
const specTool = specValidator('2025-11-25', 'Tool')

t.test('listing: one object schema per route, shared $refs inlined, 2020-12 and spec-valid', async (t) => {
  const { app } = await api()
  const { tools } = await injectClient(app, { era: 'legacy', headers: { authorization: 'Bearer api-key' } }).listTools()
  // In the order the routes were declared: the root's route first, then the /api plugin's (avvio loads it after).
  t.strictSame(tools.map((tool) => tool.name), ['put_notes_by_slug', 'get_api_users_by_id', 'create_user', 'delete_api_users_by_id', 'get_api_crash'])
  const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
  for (const tool of tools) {
    t.ok(specTool(tool), `${tool.name} is a valid Tool`)
    t.ok(ajv.validateSchema(tool.inputSchema), `${tool.name} inputSchema is valid 2020-12`)
    ajv.compile(tool.inputSchema)
    if (tool.outputSchema !== undefined) ajv.compile(tool.outputSchema)
  }
  const get = byName.get_api_users_by_id!
  t.equal(get.title, 'Get a user')
  t.equal(get.description, 'One user by id.')
  t.strictSame(get.inputSchema, {
    type: 'object',
    properties: { id: { minimum: 1, type: 'integer' }, fields: { type: 'array', items: { type: 'string' } } },
    required: ['id'],
    additionalProperties: false
  })
  t.strictSame(get.outputSchema, {
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['id', 'name']
  })
  t.strictSame(get.annotations, { readOnlyHint: true })
  const create = byName.create_user!
  t.equal(create.title, 'Create a user')
  t.strictSame(create.annotations, { readOnlyHint: false, destructiveHint: false, openWorldHint: false }, 'the route\'s annotations over the method\'s hints')
  t.strictSame((create.inputSchema as Record<string, unknown>).required, ['name'])
  t.equal((create.inputSchema as Record<string, unknown>).additionalProperties, false, 'a closed body closes the arguments')
  t.strictSame(byName.delete_api_users_by_id!.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true })
  t.strictSame(byName.delete_api_users_by_id!.inputSchema, { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    'a path parameter without a params schema is a required string')
  const put = byName.put_notes_by_slug!
  t.strictSame(put.inputSchema, {
    type: 'object',
    properties: { slug: { type: 'string', pattern: '^[a-z-]+$' }, note: { type: 'array', items: { type: 'string' } }, 'x-tenant': { type: 'string', enum: ['a', 'b'] } },
    required: ['slug', 'note', 'x-tenant'],
    additionalProperties: false
  })
  t.strictSame(put.outputSchema, { type: 'object', properties: { result: { type: 'integer' } }, required: ['result'] }, 'a non-object answer is wrapped as { result }')
})

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: calls run the route's hooks, validation, serializer and error handler`, async (t) => {
    const { app, seen, logs } = await api()
    const client = injectClient(app, { era, headers: { authorization: 'Bearer api-key', 'x-secret-mcp': 'do not leak' } })
    const ok = await client.callTool('get_api_users_by_id', { id: 7, fields: ['name', 'tags'] })
    t.strictSame(bare(ok), { content: [{ type: 'text', text: '{"id":7,"name":"Ada","tags":["admin"]}' }], structuredContent: { id: 7, name: 'Ada', tags: ['admin'] } },
      'the route\'s serializer shaped the answer (no password, no fields)')
    const last = seen.at(-1)!
    t.equal(last.url, '/api/users/7?fields=name&fields=tags', 'arrays repeat the query key')
    t.equal(last.headers.authorization, 'Bearer api-key', 'the forwarded bearer token reached the auth hook')
    t.equal(last.headers['x-secret-mcp'], undefined, 'no other header of the MCP request reaches the route')
    t.notOk(Object.keys(last.headers).some((h) => h.startsWith('mcp-')), 'no MCP header reaches the route')
    t.equal(last.ip, '127.0.0.1')

    t.strictSame(bare(await client.callTool('get_api_users_by_id', { id: 3 })), { content: [{ type: 'text', text: 'HTTP 404 Not Found: user 3 does not exist' }], isError: true })
    t.strictSame(bare(await client.callTool('get_api_users_by_id', { id: 0 })), { content: [{ type: 'text', text: 'HTTP 400 Bad Request: params/id must be >= 1' }], isError: true },
      'the route\'s own validation message')
    const created = await client.callTool('create_user', { name: 'Grace' })
    t.strictSame(created.structuredContent, { id: 8, name: 'Grace', tags: [] }, '201 with its schema')
    t.match((await client.callTool('create_user', { name: 'G', role: 'admin' })).content, [{ text: /unknown argument/ }])
    t.strictSame(bare(await client.callTool('delete_api_users_by_id', { id: '8' })), { content: [] }, '204: no content')

    const crash = await client.callTool('get_api_crash', {})
    t.strictSame(bare(crash), { content: [{ type: 'text', text: 'The tool "get_api_crash" failed (HTTP 500)' }], isError: true })
    t.notMatch(JSON.stringify(crash), /hunter2/, 'no internals reach the client')
    t.ok(logs.some((line) => line.includes('hunter2') && line.includes('MCP route-backed tool')), 'the route\'s answer is logged')

    const noKey = injectClient(app, { era })
    t.strictSame(bare(await noKey.callTool('get_api_users_by_id', { id: 7 })), { content: [{ type: 'text', text: 'HTTP 401 Unauthorized: a valid API key is required' }], isError: true },
      'without the bearer token the route\'s auth hook refuses')
  })
}

t.test('body as one argument, header arguments, wrapped output, hostile path values', async (t) => {
  const { app, seen } = await api()
  const client = injectClient(app, { era: 'modern' })
  const put = await client.callTool('put_notes_by_slug', { slug: 'shopping', note: ['milk', 'eggs'], 'x-tenant': 'a' })
  t.strictSame(bare(put), { content: [{ type: 'text', text: '2' }], structuredContent: { result: 2 } })
  t.equal(seen.at(-1)!.headers['x-tenant'], 'a')
  t.equal(seen.at(-1)!.headers.authorization, undefined, 'nothing to forward: no authorization')
  t.match(await client.callTool('put_notes_by_slug', { slug: 'x', note: [], 'x-tenant': 'c' }), { isError: true, content: [{ text: /^HTTP 400 Bad Request: headers\/x-tenant must be equal to one of the allowed values/ }] })
  for (const slug of ['..', '.', '']) {
    const before = seen.length
    t.match(await client.callTool('put_notes_by_slug', { slug, note: [], 'x-tenant': 'a' }), { isError: true, content: [{ text: /Invalid arguments/ }] }, `slug ${JSON.stringify(slug)} is refused`)
    t.equal(seen.length, before, 'the route never ran')
  }
  // An encoded slash stays inside its parameter: the router sees one segment, the pattern refuses it.
  t.match(await client.callTool('put_notes_by_slug', { slug: 'a/../../api/crash', note: [], 'x-tenant': 'a' }), { isError: true, content: [{ text: /pattern/ }] })
})

t.test('route tools are catalogue definitions: runtime changes, duplicates', async (t) => {
  const { app } = await api()
  const client = injectClient(app, { era: 'modern', headers: { authorization: 'Bearer api-key' } })
  await app.mcp.tools.disable('get_api_crash')
  t.notOk((await client.listTools()).tools.some((tool) => tool.name === 'get_api_crash'))
  await t.rejects(client.callTool('get_api_crash', {}), { code: -32602 })
  await app.mcp.tools.enable('get_api_crash')
  await app.mcp.tools.remove('delete_api_users_by_id')
  t.notOk(app.mcp.tools.has('delete_api_users_by_id'))

  const dup = Fastify()
  await dup.register(mcpCapabilities, { server: { ...defineTools({ get_users: { handler: () => ({ content: [] }) } }) }, serverInfo: SERVER_INFO, routes: true })
  dup.get('/users', { config: { mcp: true } }, async () => [])
  await t.rejects(async () => { await dup.ready() }, { code: 'FST_MCP_DUPLICATE_DEFINITION', message: /tool "get_users" is defined twice: defineTools.* and route GET \/users/ })
})

t.test('registration errors name the route and the key', async (t) => {
  const collide = Fastify()
  await collide.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
  collide.post('/items/:id', { config: { mcp: true }, schema: { body: Type.Object({ id: Type.String() }) } }, async () => ({}))
  await t.rejects(async () => { await collide.ready() }, { code: 'FST_MCP_ROUTE_ARGUMENT_COLLISION', message: /Route POST \/items\/:id .*"id" would be both in the params and in the body/ })

  const off = Fastify()
  await off.register(mcpCapabilities, { server: PROMPTS_ONLY, serverInfo: SERVER_INFO })
  t.throws(() => off.get('/x', { config: { mcp: true } }, async () => ({})), { code: 'FST_MCP_INVALID_ROUTE_TOOL', message: /GET \/x .*routes: true/ })
  t.throws(() => off.get('/y', { config: { mcp: { nmae: 'x' } } }, async () => ({})), { code: 'FST_MCP_INVALID_ROUTE_TOOL' })

  const bad = Fastify()
  await bad.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
  t.throws(() => bad.get('/y', { config: { mcp: { nmae: 'x' } } }, async () => ({})), { code: 'FST_MCP_INVALID_ROUTE_TOOL', message: /config\.mcp\.nmae is not an option/ })
  t.throws(() => bad.get('/z', { config: { mcp: { headers: ['Authorization'] } } }, async () => ({})), { code: 'FST_MCP_INVALID_ROUTE_TOOL', message: /"authorization" cannot be an argument/ })
  t.throws(() => bad.route({ method: ['GET', 'POST'], url: '/m', config: { mcp: true }, handler: async () => ({}) }), { code: 'FST_MCP_INVALID_ROUTE_TOOL', message: /several methods/ })
  await bad.close()
  for (const [routes, code] of [[{ forwardHeaders: 'authorization' }, 'routes.forwardHeaders'], [{ maxResponseBytes: 0 }, 'routes.maxResponseBytes'], [{ forwardHeaders: ['content-length'] }, 'routes.forwardHeaders[0]'], [{ other: 1 }, 'routes.other'], ['yes', 'routes']] as const) {
    await t.rejects(async () => { await Fastify().register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: routes as never }).ready() }, { code: 'FST_MCP_INVALID_OPTION', message: new RegExp(`"${code.replace(/[.[\]]/g, '\\$&')}"`) })
  }
})

t.test('headers(ctx), maxResponseBytes, abort, the caller\'s address', async (t) => {
  const app = Fastify({ trustProxy: false })
  const got: Array<Record<string, unknown>> = []
  let aborted = false
  await app.register(mcpCapabilities, {
    server: {},
    serverInfo: SERVER_INFO,
    routes: { headers: (ctx) => ({ 'x-mcp-client': ctx.clientInfo?.name ?? 'unknown' }), maxResponseBytes: 1000 },
    limits: { handlerTimeoutMs: 50 }
  })
  app.get('/who', { config: { mcp: true } }, async (request) => {
    got.push({ ...request.headers, ip: request.ip })
    return 'hello'
  })
  app.get('/big', { config: { mcp: true } }, async () => 'x'.repeat(5000))
  let slowDone: () => void = () => {}
  const slowFinished = new Promise<void>((resolve) => { slowDone = resolve })
  app.get('/slow', { config: { mcp: true } }, async (request) => {
    await new Promise((resolve) => setTimeout(resolve, 200))
    aborted = request.raw.destroyed
    slowDone()
    return 'late'
  })
  t.teardown(() => app.close())
  await app.ready()
  const client = injectClient(app, { era: 'modern', clientInfo: { name: 'tester', version: '1' } })
  t.strictSame(bare(await client.callTool('get_who', {})), { content: [{ type: 'text', text: 'hello' }] })
  t.equal(got[0]!['x-mcp-client'], 'tester')
  t.match(await client.callTool('get_big', {}), { isError: true, content: [{ text: /larger than 1000 bytes/ }] })
  await t.rejects(client.callTool('get_slow', {}), { code: -32603 }, 'the endpoint\'s handler timeout answers')
  await slowFinished
  t.equal(aborted, true, 'the route\'s request was aborted with the handler\'s signal')
  t.equal(got[0]!.ip, '127.0.0.1', 'the route sees the MCP client\'s address')
})

t.test('no routes option: nothing changes (no tools capability from routes)', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: PROMPTS_ONLY, serverInfo: SERVER_INFO })
  app.get('/plain', async () => 'x')
  await app.ready()
  t.equal(app.mcp.capabilities.modern.tools, undefined)
  await app.close()
})
