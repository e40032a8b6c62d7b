/**
 * The request path's structure, from outside: the one method table marks
 * what the endpoint serves itself and the eras of every method, and the
 * endpoint answers by it (an entry's era and extension decide "method not
 * found"); per-request state lives in private slots, each owned by one
 * module, all in one record under one symbol declared with
 * `decorateRequest` (lib/common/request-slot.ts): `runAsTask` reads the
 * call's immutable plan (the tasks service, the params, the tool's shaping).
 */
import t from 'tap'
import Fastify, { type FastifyRequest } from 'fastify'
import mcpCapabilities, { canRunAsTask, type HandlerContext, runAsTask } from '../../lib/index.js'
import { injectClient, McpResponseError } from '../../lib/testing/index.js'
import { CAPABILITIES, isAdvertised, METHODS, methodIn, MODULE_METHODS, SKILLS_EXTENSION } from '../../lib/protocol/methods.js'
import { callerOf } from '../../lib/handler/caller.js'
import { type TaskPlan, taskPlanOf } from '../../lib/tasks/call-plan.js'

const SERVER_INFO = { name: 'path', version: '1.0.0' }
const ENDPOINT_SERVED = ['initialize', 'ping', 'server/discover', 'subscriptions/listen', 'tasks/get', 'tasks/update', 'tasks/cancel']

t.test('one table: endpoint-served methods marked, every method with its eras', async (t) => {
  const served = Object.entries(METHODS).filter(([, e]) => e.servedBy === 'endpoint').map(([name]) => name)
  t.same(served.sort(), [...ENDPOINT_SERVED].sort())
  t.equal(MODULE_METHODS.length + served.length, Object.keys(METHODS).length, 'every entry is served by one or the other')
  for (const [name, entry] of Object.entries(METHODS)) t.ok(entry.eras.length > 0, `${name} exists in some era`)
  t.equal(methodIn('modern', 'initialize'), undefined, 'initialize is legacy only')
  t.equal(methodIn('modern', 'logging/setLevel'), undefined, 'modern removed logging/setLevel')
  t.equal(methodIn('legacy', 'server/discover'), undefined, 'discover is modern only')
  t.equal(METHODS.constructor, undefined, 'no inherited names')
  t.equal(METHODS['tasks/get']?.servedBy === 'endpoint' && METHODS['tasks/get'].extension, 'tasks')
})

t.test('one table: where each capability is advertised, read without a branch on its name', async (t) => {
  const all = { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {}, extensions: { [SKILLS_EXTENSION]: { directoryRead: true } } }
  for (const name of Object.keys(CAPABILITIES) as Array<keyof typeof CAPABILITIES>) t.ok(isAdvertised(all, name), `${name} advertised`)
  t.notOk(isAdvertised({ resources: {} }, 'resources.subscribe'), 'a flag must be true')
  t.notOk(isAdvertised({ resources: { subscribe: 'yes' } }, 'resources.subscribe'), 'a flag that is not true is not advertised')
  t.ok(isAdvertised({ extensions: { [SKILLS_EXTENSION]: {} } }, 'skills'), 'an extension is advertised by its presence')
  t.notOk(isAdvertised({ extensions: { [SKILLS_EXTENSION]: {} } }, 'skills.directoryRead'), 'its setting is a flag')
  t.notOk(isAdvertised({}, 'skills'), 'no extensions object')
  t.notOk(isAdvertised({ tools: {} }, 'prompts'))
})

interface Seen { plan: TaskPlan | undefined, canRun: boolean, keys: string[] }

function app (tasks: boolean, seen: Seen[]) {
  const fastify = Fastify()
  fastify.register(mcpCapabilities, {
    serverInfo: SERVER_INFO,
    tasks,
    server: {
      listTools: () => ({ tools: [{ name: 'work', inputSchema: { type: 'object' } }] }),
      callTool: (params: { arguments?: Record<string, unknown> }, ctx: HandlerContext) => {
        seen.push({ plan: taskPlanOf(ctx.request), canRun: canRunAsTask(ctx), keys: Object.keys(ctx.request).filter((k) => k.toLowerCase().includes('mcp')) })
        return runAsTask(ctx, () => ({ content: [{ type: 'text', text: String(params.arguments?.n) }] }))
      }
    }
  })
  return fastify
}

t.test('per-request state is private: no public request decorator, no plan without tasks', async (t) => {
  const seen: Seen[] = []
  const fastify = app(false, seen)
  t.teardown(() => fastify.close())
  await fastify.ready()
  t.notOk(fastify.hasRequestDecorator('mcpScope'), 'no public slot')
  const client = injectClient(fastify)
  t.match(await client.callTool('work', { n: 1 }), { content: [{ text: '1' }] })
  t.same(seen[0]?.keys, [], 'nothing named on the request')
  t.equal(seen[0]?.plan, undefined, 'no plan: the endpoint serves no tasks')
  t.equal(seen[0]?.canRun, false)
})

t.test('one declared slot: every request of the app, on any route, gets one store of the plugin\'s, not one per module', async (t) => {
  const fastify = app(false, [])
  let symbols: symbol[] = []
  fastify.get('/other', async (request) => {
    symbols = Object.getOwnPropertySymbols(request).filter((s) => s.description?.startsWith('fastify-mcp-capabilities') === true)
    return 'ok'
  })
  t.teardown(() => fastify.close())
  const response = await fastify.inject('/other')
  t.equal(response.body, 'ok')
  t.equal(symbols.length, 1, 'one symbol of the plugin on a request of another route')
  t.equal((fastify.hasRequestDecorator as (name: symbol) => boolean)(symbols[0] as symbol), true, 'declared, so request objects keep one shape')
})

t.test('a plain legacy tools/call writes no slot: its request keeps the declared null, no record is made', async (t) => {
  const records: unknown[] = []
  const fastify = Fastify()
  fastify.register(mcpCapabilities, {
    serverInfo: SERVER_INFO,
    server: {
      listTools: () => ({ tools: [{ name: 'work', inputSchema: { type: 'object' } }] }),
      callTool: (_params: unknown, ctx: HandlerContext) => {
        const own = Object.getOwnPropertySymbols(ctx.request).filter((s) => s.description?.startsWith('fastify-mcp-capabilities') === true)
        records.push(...own.map((s) => (ctx.request as unknown as Record<symbol, unknown>)[s]))
        return { content: [] }
      }
    }
  })
  t.teardown(() => fastify.close())
  const response = await fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'work', arguments: {} } }
  })
  t.equal(response.statusCode, 200)
  t.same(records, [null], 'the one slot symbol, still null when the handler runs')
})

t.test('runAsTask reads the immutable plan of a modern tools/call', async (t) => {
  const seen: Seen[] = []
  const fastify = app(true, seen)
  t.teardown(() => fastify.close())
  await fastify.ready()
  const client = injectClient(fastify, { clientCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } })
  const created = await client.callTool('work', { n: 2 }) as unknown as { resultType: string, taskId: string }
  t.equal(created.resultType, 'task')
  const plan = seen[0]?.plan
  t.ok(plan !== undefined && Object.isFrozen(plan), 'one frozen plan')
  t.same(plan?.params.arguments, { n: 2 }, 'the params as parsed once')
  t.ok(plan?.service !== undefined, 'the tasks service')
  t.equal(plan?.shape, undefined, 'a raw callTool has no shaping')
  t.equal(seen[0]?.canRun, true)
  // A task method is endpoint-served: answered without any module handler.
  const task = await client.request('tasks/get', { taskId: created.taskId })
  t.equal(task.taskId, created.taskId)
  // Without the extension the same method is "not found", as the table's `extension` says.
  const plain = app(false, [])
  t.teardown(() => plain.close())
  await t.rejects(injectClient(plain).request('tasks/get', { taskId: created.taskId }), McpResponseError)
})

t.test('a context whose request has no plan runs the work inline', async (t) => {
  const request = { headers: {} } as unknown as FastifyRequest
  const ctx = { request, clientCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } as unknown as HandlerContext
  t.equal(canRunAsTask(ctx), false)
  t.same(await runAsTask(ctx, () => ({ content: [] })), { content: [] })
})

t.test('callerOf is computed once per request and kept in its private slot', async (t) => {
  const request = { headers: { authorization: 'Bearer a' } } as unknown as FastifyRequest
  const first = callerOf(request)
  t.match(first, /^sha256:/)
  t.same(Object.keys(request), ['headers'], 'kept under a symbol, not a name')
  ;(request.headers as Record<string, string>).authorization = 'Bearer b'
  t.equal(callerOf(request), first, 'read from the slot, not the header again')
  t.equal(callerOf({ headers: {} } as unknown as FastifyRequest), 'anonymous')
})
