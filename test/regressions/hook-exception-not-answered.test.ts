/**
 * Issue 36 item 8: a preHandler or onResult hook's exception text was
 * answered to the client as a tool error under the default
 * `toolErrors: 'message'`, though the docs say a hook fault answers -32603
 * with nothing of the exception. Now every hook fault is logged and answered
 * `-32603 Internal error`, in both eras, for defined and raw tools, prompts
 * and resources, and for a task's work; an `McpError` a hook throws is
 * answered as thrown (the way a deployment chooses what the client reads).
 */
import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { definePrompts, defineResources, defineTools, ErrorCode, McpError, runAsTask } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { tasksClient } from '../tasks/helpers.js'

const SECRET = 'db password is hunter2'

async function build (t: Test, server: object, hooks: (app: FastifyInstance) => void): Promise<{ app: FastifyInstance, logs: string[] }> {
  const logs: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { logs.push(String(chunk)); done() } })
  const app = Fastify({ logger: { level: 'error', stream } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'hook-faults', version: '1.0.0' }, server: server as never, tasks: true })
  hooks(app)
  await app.ready()
  return { app, logs }
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

const defined = {
  ...defineTools({
    pre: { handler: () => text('pre') },
    post: { handler: () => text('post') },
    chosen: { handler: () => text('chosen') },
    tasked: { handler: (_args: Record<string, never>, ctx) => runAsTask(ctx, async () => text('post')) }
  }),
  ...definePrompts({ greet: { handler: () => 'hello' } }),
  ...defineResources({ note: { uri: 'mem://note', read: () => 'note' } })
}

function faulty (app: FastifyInstance): void {
  app.mcp.addHook('preHandler', (call) => {
    if (call.target === 'pre' || call.target === 'greet' || call.target === 'mem://note' || call.target === 'raw-pre') throw new Error(SECRET)
    if (call.target === 'chosen') throw new McpError(-32029, 'Rate limit exceeded', { retryAfterMs: 5 })
  })
  app.mcp.addHook('onResult', async (op, result) => {
    if (op.method === 'tools/call' && JSON.stringify(result).includes('"post"')) throw new TypeError(SECRET)
  })
}

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: a preHandler or onResult hook's exception is -32603, its text only in the log`, async (t) => {
    const { app, logs } = await build(t, defined, faulty)
    const client = injectClient(app, { era })
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['preHandler of a defined tool', () => client.callTool('pre')],
      ['onResult of a defined tool', () => client.callTool('post')],
      ['preHandler of a prompt', () => client.getPrompt('greet')],
      ['preHandler of a resource', () => client.readResource('mem://note')]
    ]
    for (const [what, call] of calls) {
      const answer = await call().then((result) => ({ result }), (err: unknown) => ({ err }))
      t.match(answer, { err: { code: ErrorCode.InternalError, message: 'Internal error' } }, what)
      t.notMatch(JSON.stringify(answer), /hunter2/, `${what}: nothing of the exception`)
    }
    await t.rejects(client.callTool('chosen'), { code: -32029, message: 'Rate limit exceeded', data: { retryAfterMs: 5 } }, 'an McpError is answered as thrown')
    t.equal(logs.filter((line) => line.includes('hunter2')).length, 4, 'each fault logged with its exception')
  })
}

t.test('a raw tool handler\'s preHandler fault, and a task\'s work through a faulty onResult', async (t) => {
  const { app } = await build(t, {
    listTools: () => ({ tools: [{ name: 'raw-pre', inputSchema: { type: 'object' } }] }),
    callTool: () => text('raw')
  }, faulty)
  await t.rejects(injectClient(app).callTool('raw-pre'), { code: ErrorCode.InternalError, message: 'Internal error' })

  const { app: tasking } = await build(t, defined, faulty)
  const client = tasksClient(t, tasking)
  const created = await client.call('tasked', {})
  const task = await client.poll(created.json.result.taskId)
  t.equal(task.status, 'failed', 'the task ends failed, as a direct call errs')
  t.strictSame(task.error, { code: ErrorCode.InternalError, message: 'Internal error' })
})
