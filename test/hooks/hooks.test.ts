/**
 * MCP hooks (`fastify.mcp.addHook`): order, what each may answer, replace or
 * observe, in both eras, for defined and raw handlers (task-run tools:
 * task-hooks.test.ts), and encapsulation (a child context's hook does not reach the endpoint's
 * handlers; an fp-wrapped plugin's does).
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Type } from '@sinclair/typebox'
import mcpCapabilities, { defineTools, definePrompts, McpError, ErrorCode, runAsTask, type HandlerContext, type McpOperation, type McpCall } from '../../lib/index.js'
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

t.test('encapsulation: a child context\'s hook is refused (it would apply to nothing), an fp plugin\'s reaches the endpoint; no hook after ready', async (t) => {
  const seen: string[] = []
  const app = await build(t, definedServer([]), (app) => {
    app.register(async (child) => {
      t.throws(() => child.mcp.addHook('onRequest', () => { seen.push('child') }), { code: 'FST_MCP_INVALID_HOOK', message: /child context/ })
    })
    app.register(fp(async (shared) => { shared.mcp.addHook('onRequest', () => { seen.push('fp') }) }))
    app.mcp.addHook('onRequest', function (this: FastifyInstance) { seen.push(this === app ? 'root, this = its context' : 'root, wrong this') })
  })
  await injectClient(app, { era: 'modern' }).listTools()
  t.same(seen, ['root, this = its context', 'fp'], 'in the order added (a plugin\'s body runs when it loads)')
  t.throws(() => app.mcp.addHook('onRequest', () => {}), { code: 'FST_MCP_INVALID_HOOK' })
  const fresh = Fastify()
  t.teardown(() => fresh.close())
  await fresh.register(mcpCapabilities, { serverInfo: SERVER_INFO, server: definedServer([]) })
  t.throws(() => fresh.mcp.addHook('onSend' as any, () => {}), { code: 'FST_MCP_INVALID_HOOK', message: /onRequest, preHandler, onResult, onError/ })
  t.throws(() => fresh.mcp.addHook('onRequest', 'x' as any), { code: 'FST_MCP_INVALID_HOOK' })
  t.equal(fresh.mcp.serverInfo.name, 'hooks', 'the decorator keeps its other members')
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
