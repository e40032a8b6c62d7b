/**
 * The request path's structure, from outside: the one method table marks
 * what the endpoint serves itself and the eras of every method, and the
 * endpoint answers by it (an entry's era and extension decide "method not
 * found"); per-request state is one `mcpScope` slot declared with
 * `decorateRequest`, empty until a step needs it, through which `runAsTask`
 * finds the tasks service and the call's params (no registry beside it).
 */
import t from 'tap'
import Fastify, { type FastifyRequest } from 'fastify'
import mcpCapabilities, { canRunAsTask, type HandlerContext, runAsTask } from '../../lib/index.js'
import { injectClient, McpResponseError } from '../../lib/testing/index.js'
import { METHODS, methodIn, MODULE_METHODS } from '../../lib/protocol/methods.js'
import { callerOf, RequestScope } from '../../lib/handler/request-scope.js'

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

function app (tasks: boolean, seen: Array<{ scope: RequestScope | null, canRun: boolean }>) {
  const fastify = Fastify()
  fastify.register(mcpCapabilities, {
    serverInfo: SERVER_INFO,
    tasks,
    server: {
      listTools: () => ({ tools: [{ name: 'work', inputSchema: { type: 'object' } }] }),
      callTool: (params: { arguments?: Record<string, unknown> }, ctx: HandlerContext) => {
        seen.push({ scope: ctx.request.mcpScope, canRun: canRunAsTask(ctx) })
        return runAsTask(ctx, () => ({ content: [{ type: 'text', text: String(params.arguments?.n) }] }))
      }
    }
  })
  return fastify
}

t.test('the request scope is declared with decorateRequest and empty until used', async (t) => {
  const seen: Array<{ scope: RequestScope | null, canRun: boolean }> = []
  const fastify = app(false, seen)
  t.teardown(() => fastify.close())
  await fastify.ready()
  t.ok(fastify.hasRequestDecorator('mcpScope'))
  const client = injectClient(fastify)
  t.match(await client.callTool('work', { n: 1 }), { content: [{ text: '1' }] })
  t.equal(seen[0]?.scope, null, 'nothing was put in scope: no tasks, no authorization')
  t.equal(seen[0]?.canRun, false)
})

t.test('runAsTask finds the tasks service and the params in the scope of a modern tools/call', async (t) => {
  const seen: Array<{ scope: RequestScope | null, canRun: boolean }> = []
  const fastify = app(true, seen)
  t.teardown(() => fastify.close())
  await fastify.ready()
  const client = injectClient(fastify, { clientCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } })
  const created = await client.callTool('work', { n: 2 }) as unknown as { resultType: string, taskId: string }
  t.equal(created.resultType, 'task')
  const scope = seen[0]?.scope
  t.ok(scope instanceof RequestScope)
  t.same(scope?.params?.arguments, { n: 2 }, 'the params as parsed once')
  t.ok(scope?.tasks !== undefined, 'the tasks service')
  t.equal(seen[0]?.canRun, true)
  // A task method is endpoint-served: answered without any module handler.
  const task = await client.request('tasks/get', { taskId: created.taskId })
  t.equal(task.taskId, created.taskId)
  // Without the extension the same method is "not found", as the table's `extension` says.
  const plain = app(false, [])
  t.teardown(() => plain.close())
  await t.rejects(injectClient(plain).request('tasks/get', { taskId: created.taskId }), McpResponseError)
})

t.test('a context whose request has no scope runs the work inline', async (t) => {
  const request = { headers: {}, mcpScope: null } as unknown as FastifyRequest
  const ctx = { request, clientCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } as unknown as HandlerContext
  t.equal(canRunAsTask(ctx), false)
  t.same(await runAsTask(ctx, () => ({ content: [] })), { content: [] })
})

t.test('callerOf is computed once per request and kept in its scope', async (t) => {
  const request = { headers: { authorization: 'Bearer a' }, mcpScope: null } as unknown as FastifyRequest
  const first = callerOf(request)
  t.match(first, /^sha256:/)
  t.equal(request.mcpScope?.caller, first)
  ;(request.headers as Record<string, string>).authorization = 'Bearer b'
  t.equal(callerOf(request), first, 'read from the scope, not the header again')
  t.equal(callerOf({ headers: {} } as unknown as FastifyRequest), 'anonymous')
})
