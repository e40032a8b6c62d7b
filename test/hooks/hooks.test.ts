/**
 * MCP hooks (`fastify.mcp.addHook`): order, what each may answer, replace or
 * observe, in both eras, for defined and raw handlers (task-run tools:
 * task-hooks.test.ts), and encapsulation (a child context's hook reaches only the route-backed
 * tools declared in it; an fp-wrapped plugin's reaches everything).
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import mcpCapabilities, { defineTools, definePrompts, McpError, ErrorCode, type McpOperation, type McpCall } from '../../lib/index.js'
import { injectClient, McpResponseError } from '../../lib/testing/index.js'

const SERVER_INFO = { name: 'hooks', version: '1.0.0' }
const ERAS = ['legacy', 'modern'] as const

function definedServer (calls: unknown[]) {
  return {
    ...defineTools({
      add: {
        input: Type.Object({ a: Type.Number(), b: Type.Number() }),
        handler: ({ a, b }) => {
          calls.push({ a, b })
          return { content: [{ type: 'text' as const, text: String(a + b) }] }
        }
      },
      fail: { handler: () => { throw new McpError(ErrorCode.InvalidParams, 'nope') } },
      broken: { handler: () => ({ content: [{ type: 'text' as const, text: 'bad' }], isError: true }) }
    }),
    ...definePrompts({
      greet: {
        arguments: Type.Object({ who: Type.String() }),
        handler: ({ who }) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `hi ${who}` } }] })
      }
    })
  }
}

async function build (t: Test, server: object, setup: (app: FastifyInstance) => void, extra: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: SERVER_INFO, server: server as any, telemetry: false, ...extra })
  setup(app)
  await app.ready()
  return app
}

for (const era of ERAS) {
  t.test(`${era}: hooks run in order, around a defined tool, after its argument validation`, async (t) => {
    const calls: unknown[] = []
    const seen: string[] = []
    const app = await build(t, definedServer(calls), (app) => {
      app.mcp.addHook('onRequest', async (op) => { if (!op.method.endsWith('/list')) seen.push(`onRequest ${op.method} ${op.era} ${op.caller} ${op.target ?? '-'}`) })
      app.mcp.addHook('preHandler', (call) => {
        seen.push(`preHandler ${call.target} ${JSON.stringify(call.arguments)}`)
        if (call.target === 'add') call.arguments = { ...call.arguments, b: 100 }
      })
      app.mcp.addHook('onResult', (op, result) => {
        if (op.method.endsWith('/list')) return
        seen.push(`onResult ${op.method}`)
        return op.method === 'tools/call' ? { ...result, content: [{ type: 'text', text: `[${(result.content as any)[0].text}]` }] } : undefined
      })
      app.mcp.addHook('onResult', async (op, result) => { if (!op.method.endsWith('/list')) seen.push(`onResult2 ${(result.content as any)?.[0]?.text}`) })
    })
    const client = injectClient(app, { era })
    const result = await client.callTool('add', { a: 1, b: 2 })
    t.same(result.content, [{ type: 'text', text: '[101]' }], 'changed arguments reach the handler, each onResult sees the last result')
    t.same(calls, [{ a: 1, b: 100 }])
    t.same(seen, [
      `onRequest tools/call ${era} anonymous add`,
      'preHandler add {"a":1,"b":2}',
      'onResult tools/call',
      'onResult2 [101]'
    ])
    seen.length = 0
    const invalid = await client.callTool('add', { a: 'x' })
    t.equal(invalid.isError, true, 'invalid arguments answered by validation')
    t.notOk(seen.some((s) => s.startsWith('preHandler')), 'preHandler runs only after validation passed')
    seen.length = 0
    const prompt = await client.getPrompt('greet', { who: 'ann' })
    t.same(prompt.messages[0]?.content, { type: 'text', text: 'hi ann' })
    t.same(seen, [`onRequest prompts/get ${era} anonymous greet`, 'preHandler greet {"who":"ann"}', 'onResult prompts/get', 'onResult2 undefined'])
  })

  t.test(`${era}: onRequest and preHandler may answer or reject; onError observes errors`, async (t) => {
    const calls: unknown[] = []
    const errors: Array<[string, number, string]> = []
    const app = await build(t, definedServer(calls), (app) => {
      app.mcp.addHook('onRequest', (op) => {
        if (op.method === 'tools/list') return { tools: [] }
        if (op.target === 'limited') throw new McpError(-32029, 'Rate limit exceeded', { retryAfterMs: 1000 })
        if (op.target === 'crash') throw new Error('hook bug')
      })
      app.mcp.addHook('preHandler', async (call: McpCall) => {
        if ((call.arguments as { a?: number }).a === 7) return { content: [{ type: 'text', text: 'cached' }] }
        if ((call.arguments as { a?: number }).a === 13) throw new McpError(ErrorCode.InvalidParams, 'unlucky')
      })
      app.mcp.addHook('onError', (op: McpOperation, error) => { errors.push([op.target ?? op.method, error.code, error.message]) })
      app.mcp.addHook('onError', () => { throw new Error('a failing onError hook does not change the answer') })
    })
    const client = injectClient(app, { era })
    t.same((await client.listTools()).tools, [], 'onRequest answers a list')
    t.same((await client.callTool('add', { a: 7, b: 0 })).content, [{ type: 'text', text: 'cached' }], 'preHandler answers in place of the tool')
    t.same(calls, [], 'the tool did not run')
    await t.rejects(client.callTool('add', { a: 13, b: 0 }), { code: ErrorCode.InvalidParams, message: 'unlucky' })
    await t.rejects(client.callTool('fail'), { code: ErrorCode.InvalidParams, message: 'nope' })
    const limited = await client.callTool('limited').catch((err: unknown) => err)
    t.ok(limited instanceof McpResponseError)
    t.match(limited, { code: -32029, message: 'Rate limit exceeded', data: { retryAfterMs: 1000 } })
    await t.rejects(client.callTool('crash'), { code: ErrorCode.InternalError, message: 'Internal error' }, 'a hook fault is an internal error, its message kept from the client')
    t.same(errors, [['add', ErrorCode.InvalidParams, 'unlucky'], ['fail', ErrorCode.InvalidParams, 'nope'], ['limited', -32029, 'Rate limit exceeded'], ['crash', ErrorCode.InternalError, 'Internal error']])
  })

  t.test(`${era}: raw handlers get hooks too; onRequest cannot answer an endpoint-served method`, async (t) => {
    const received: unknown[] = []
    const app = await build(t, {
      listTools: () => ({ tools: [{ name: 'raw', inputSchema: { type: 'object' } }] }),
      callTool: (params: { arguments?: unknown }) => {
        received.push(params.arguments)
        return { content: [{ type: 'text', text: 'raw' }] }
      },
      listResources: () => ({ resources: [] }),
      readResource: ({ uri }: { uri: string }) => ({ contents: [{ uri, text: 'x' }] })
    }, (app) => {
      app.mcp.addHook('onRequest', (op) => op.method === 'initialize' || op.method === 'server/discover' ? { nope: true } : undefined)
      app.mcp.addHook('preHandler', (call) => {
        if (call.method === 'resources/read') return { contents: [{ uri: call.target as string, text: 'from hook' }] }
        call.arguments = { injected: true }
      })
    })
    const client = injectClient(app, { era })
    await client.callTool('raw', { x: 1 })
    t.same(received, [{ injected: true }])
    t.same((await client.readResource('file:///a')).contents, [{ uri: 'file:///a', text: 'from hook' }])
    await t.rejects(client.discover(), { code: ErrorCode.InternalError })
  })
}

t.test('encapsulation: an fp plugin\'s hook reaches the endpoint, a child context\'s only what is served there; no hook after ready', async (t) => {
  const seen: string[] = []
  const warnings: string[] = []
  const app = Fastify({ logger: { level: 'warn', stream: { write: (line: string) => { warnings.push(JSON.parse(line).msg) } } } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: SERVER_INFO, server: definedServer([]), telemetry: false })
  app.register(async (child) => {
    // Nothing MCP is served in this context: the hook never runs, and ready says so.
    child.mcp.addHook('onRequest', () => { seen.push('child') })
  })
  const wanted = new Set(['tools/list', 'tools/call'])
  app.register(fp(async (shared) => { shared.mcp.addHook('onRequest', (op) => { if (wanted.has(op.method)) seen.push('fp') }) }))
  app.mcp.addHook('onRequest', function (this: FastifyInstance, op) { if (wanted.has(op.method)) seen.push(this === app ? 'root, this = its context' : 'root, wrong this') })
  await app.ready()
  await injectClient(app, { era: 'modern' }).listTools()
  await injectClient(app, { era: 'legacy' }).callTool('add', { a: 1, b: 2 })
  t.same(seen, ['root, this = its context', 'fp', 'root, this = its context', 'fp'], 'in the order added (a plugin\'s body runs when it loads); the child\'s never')
  t.equal(warnings.filter((m) => /serves no MCP operation/.test(m)).length, 1, 'the idle context is named once at ready')
  t.throws(() => app.mcp.addHook('onRequest', () => {}), { code: 'FST_MCP_INVALID_HOOK' })
  const fresh = Fastify()
  t.teardown(() => fresh.close())
  await fresh.register(mcpCapabilities, { serverInfo: SERVER_INFO, server: definedServer([]) })
  t.throws(() => fresh.mcp.addHook('onSend' as any, () => {}), { code: 'FST_MCP_INVALID_HOOK', message: /onRequest, preHandler, onResult, onError/ })
  t.throws(() => fresh.mcp.addHook('onRequest', 'x' as any), { code: 'FST_MCP_INVALID_HOOK' })
  t.equal(fresh.mcp.serverInfo.name, 'hooks', 'the decorator keeps its other members')
})

t.test('encapsulation: a route-backed tool gets the hooks of its route\'s context (outer first), siblings and other operations do not', async (t) => {
  const seen: string[] = []
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: SERVER_INFO, server: definedServer([]), routes: true, telemetry: false })
  const schema = { params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }
  await app.register(async (books) => {
    // Added before the endpoint's own hooks below, but an outer context's hooks run first.
    books.mcp.addHook('onRequest', function (this: FastifyInstance, op) { seen.push(`books onRequest ${op.target} ${this === books ? 'this=books' : 'wrong this'}`) })
    books.mcp.addHook('preHandler', (call) => {
      seen.push(`books preHandler ${JSON.stringify(call.arguments)}`)
      if (call.arguments.id === 'secret') throw new McpError(ErrorCode.InvalidParams, 'not that one')
    })
    books.mcp.addHook('onResult', (_op, result) => ({ ...result, _meta: { 'example.com/scoped': true } }))
    books.mcp.addHook('onError', (op, error) => { seen.push(`books onError ${op.target} ${error.code}`) })
    books.get('/books/:id', { config: { mcp: { name: 'get_book' } }, schema }, async (request) => ({ id: (request.params as { id: string }).id }))
    await books.register(async (inner) => {
      inner.mcp.addHook('preHandler', () => { seen.push('inner preHandler') })
      inner.get('/books/:id/cover', { config: { mcp: { name: 'get_cover' } }, schema }, async () => ({ cover: 'none' }))
    })
  }, { prefix: '/v1' })
  await app.register(async (films) => {
    films.mcp.addHook('preHandler', () => { seen.push('films preHandler') })
    films.get('/films/:id', { config: { mcp: { name: 'get_film' } }, schema }, async (request) => ({ id: (request.params as { id: string }).id }))
  })
  app.mcp.addHook('preHandler', (call) => { seen.push(`root preHandler ${call.target}`) })
  await app.ready()
  for (const era of ERAS) {
    seen.length = 0
    const client = injectClient(app, { era })
    const book = await client.callTool('get_book', { id: '7' })
    t.match(book._meta, { 'example.com/scoped': true }, `${era}: the books context's onResult replaced the result`)
    t.same(seen, ['books onRequest get_book this=books', 'root preHandler get_book', 'books preHandler {"id":"7"}'])
    seen.length = 0
    await client.callTool('get_cover', { id: '7' })
    t.same(seen, ['books onRequest get_cover this=books', 'root preHandler get_cover', 'books preHandler {"id":"7"}', 'inner preHandler'], `${era}: an inner context gets its own and its parents' hooks`)
    seen.length = 0
    await client.callTool('get_film', { id: '1' })
    await client.callTool('add', { a: 1, b: 2 })
    await client.listTools()
    t.same(seen, ['root preHandler get_film', 'films preHandler', 'root preHandler add'], `${era}: a sibling context's hooks and other operations are untouched by the books hooks`)
    seen.length = 0
    await t.rejects(client.callTool('get_book', { id: 'secret' }), { code: ErrorCode.InvalidParams })
    t.same(seen.slice(-1), [`books onError get_book ${ErrorCode.InvalidParams}`])
  }
  // A route tool replaced at runtime by a definition of the endpoint's no longer gets the route context's hooks.
  await app.mcp.tools.update('get_book', { handler: () => 'replaced' })
  seen.length = 0
  const replaced = await injectClient(app, { era: 'modern' }).callTool('get_book')
  t.notOk(replaced._meta?.['example.com/scoped'])
  t.same(seen, ['root preHandler get_book'])
})

t.test('a raw callTool beside definitions gets its preHandler too (once)', async (t) => {
  const received: unknown[] = []
  const seen: string[] = []
  const app = await build(t, {
    ...definedServer([]),
    listTools: () => ({ tools: [{ name: 'raw', inputSchema: { type: 'object' } }] }),
    callTool: (params: { arguments?: unknown }) => {
      received.push(params.arguments)
      return { content: [{ type: 'text', text: 'raw' }] }
    }
  }, (app) => {
    app.mcp.addHook('preHandler', (call) => {
      seen.push(call.target as string)
      call.arguments = { ...call.arguments, hooked: true }
    })
  })
  const client = injectClient(app, { era: 'legacy' })
  await client.callTool('raw', { x: 1 })
  await client.callTool('add', { a: 1, b: 2 })
  t.same(received, [{ x: 1, hooked: true }])
  t.same(seen, ['raw', 'add'])
})

t.test('route-backed tools pass the hooks like defined ones', async (t) => {
  const seen: string[] = []
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: SERVER_INFO, server: {}, routes: true, telemetry: false })
  app.get('/books/:id', {
    config: { mcp: { name: 'get_book' } },
    schema: { params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }
  }, async (request) => ({ id: (request.params as { id: string }).id }))
  app.mcp.addHook('preHandler', (call) => { seen.push(`preHandler ${call.target} ${JSON.stringify(call.arguments)}`) })
  app.mcp.addHook('onResult', (op) => { if (op.method === 'tools/call') seen.push(`onResult ${op.target}`) })
  await app.ready()
  for (const era of ERAS) {
    const result = await injectClient(app, { era }).callTool('get_book', { id: '7' })
    t.match(JSON.stringify(result.content), /7/)
  }
  t.same(seen, ['preHandler get_book {"id":"7"}', 'onResult get_book', 'preHandler get_book {"id":"7"}', 'onResult get_book'])
})
