/**
 * MCP hooks and task-run tools: the outcome of the work handed to
 * `runAsTask` passes onResult and onError as a direct call's would, with the
 * operation of the `tools/call` that created the task; the `CreateTaskResult`
 * answering that call does not. What onResult returns is what the task keeps
 * (and `tasks/get` serves); a hook's throw ends the task with a well-formed
 * outcome, never leaves it working.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import mcpCapabilities, { defineTools, ErrorCode, McpError, runAsTask, type HandlerContext, type McpOperation } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { TASKS_CAPS, tasksClient } from '../tasks/helpers.js'

type Seen = Array<{ hook: string, op: McpOperation, value: any }>

function server (release: { wait: Promise<void> }) {
  return defineTools({
    work: {
      input: Type.Object({ mode: Type.String() }),
      handler: ({ mode }, ctx: HandlerContext) => runAsTask(ctx, async () => {
        if (mode === 'slow') await release.wait
        if (mode === 'mcp') throw new McpError(ErrorCode.InvalidParams, 'bad input', { field: 'x' })
        if (mode === 'throw') throw new Error('work broke')
        return { content: [{ type: 'text' as const, text: `done ${mode}` }] }
      })
    }
  })
}

async function build (t: Test, setup: (app: FastifyInstance, seen: Seen) => void, extra: Record<string, unknown> = {}) {
  const seen: Seen = []
  let open = (): void => {}
  const release = { wait: new Promise<void>((resolve) => { open = resolve }) }
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'task-hooks', version: '1.0.0' }, server: server(release), tasks: true, telemetry: false, ...extra })
  setup(app, seen)
  await app.ready()
  return { app, seen, open }
}

function record (app: FastifyInstance, seen: Seen): void {
  app.mcp.addHook('onResult', (op, result) => { if (op.method === 'tools/call') seen.push({ hook: 'onResult', op, value: result }) })
  app.mcp.addHook('onError', (op, error) => { if (op.method === 'tools/call') seen.push({ hook: 'onError', op, value: error }) })
}

t.test('the work\'s result passes onResult (not the CreateTaskResult); its replacement is what tasks/get serves', async (t) => {
  const { app, seen } = await build(t, (app, seen) => {
    app.mcp.addHook('preHandler', (call) => { seen.push({ hook: 'preHandler', op: call, value: call.arguments }) })
    record(app, seen)
    app.mcp.addHook('onResult', (op, result) => op.method === 'tools/call' ? { ...result, content: [{ type: 'text', text: `[${(result.content as any)[0].text}]` }] } : undefined)
  })
  const client = tasksClient(t, app)
  const created = await client.call('work', { mode: 'fast' }, { id: 'call-7' })
  t.equal(created.json.result.resultType, 'task', 'the call is answered with a CreateTaskResult')
  const task = await client.poll(created.json.result.taskId)
  t.equal(task.status, 'completed')
  t.strictSame(task.result.content, [{ type: 'text', text: '[done fast]' }], 'the task keeps the result onResult returned')
  t.same(seen.map((s) => s.hook), ['preHandler', 'onResult'], 'preHandler once before the handler, onResult once, for the work\'s result')
  const op = seen[1]?.op as McpOperation
  t.same(seen[1]?.value.content, [{ type: 'text', text: 'done fast' }])
  t.notOk('taskId' in seen[1]?.value, 'onResult never sees the CreateTaskResult')
  t.match(op, { method: 'tools/call', id: 'call-7', era: 'modern', target: 'work', caller: 'anonymous', params: { name: 'work', arguments: { mode: 'fast' } } }, 'the operation of the tools/call that created the task')
})

t.test('a work\'s McpError passes onError and fails the task; a plain throw is a tool error through onResult, as inline', async (t) => {
  const { app, seen } = await build(t, (app, seen) => {
    record(app, seen)
    app.mcp.addHook('onError', () => { throw new Error('a failing onError hook changes nothing') })
  })
  const client = tasksClient(t, app)
  const failed = await client.poll((await client.call('work', { mode: 'mcp' })).json.result.taskId)
  t.equal(failed.status, 'failed')
  t.strictSame(failed.error, { code: ErrorCode.InvalidParams, message: 'bad input', data: { field: 'x' } })
  t.same(seen.map((s) => [s.hook, s.value]), [['onError', { code: ErrorCode.InvalidParams, message: 'bad input', data: { field: 'x' } }]])
  seen.length = 0
  const thrown = await client.poll((await client.call('work', { mode: 'throw' })).json.result.taskId)
  t.equal(thrown.status, 'completed')
  t.equal(thrown.result.isError, true)
  t.same(seen.map((s) => [s.hook, s.value.isError, s.value.content?.[0]?.text]), [['onResult', true, 'work broke']], 'what the same call answers without a task')
  // The same call without the extension runs inline and passes the same hooks once.
  seen.length = 0
  const inline = injectClient(app, { era: 'modern' })
  const result = await inline.callTool('work', { mode: 'throw' })
  t.equal(result.isError, true)
  t.same(seen.map((s) => [s.hook, s.value.isError]), [['onResult', true]])
})

t.test('a hook\'s throw while the task runs ends the task with a well-formed outcome', async (t) => {
  const { app, seen } = await build(t, (app, seen) => {
    app.mcp.addHook('onResult', async (op, result) => {
      if (op.method !== 'tools/call') return
      const text = (result.content as any)?.[0]?.text as string
      if (text === 'done protocol') throw new McpError(-32029, 'Rate limit exceeded', { retryAfterMs: 5 })
      if (text === 'done bug') throw new Error('hook bug')
      if (text === 'done question') return { resultType: 'input_required' }
      if (text === 'done task') return { resultType: 'task', taskId: 'forged' }
    })
    record(app, seen)
  }, { security: { toolErrors: 'mask' } })
  const client = tasksClient(t, app)
  const end = async (mode: string) => client.poll((await client.call('work', { mode })).json.result.taskId)

  const protocol = await end('protocol')
  t.equal(protocol.status, 'failed', 'an McpError from onResult fails the task with it')
  t.strictSame(protocol.error, { code: -32029, message: 'Rate limit exceeded', data: { retryAfterMs: 5 } })
  t.same(seen.filter((s) => s.hook === 'onError').map((s) => s.value.code), [-32029], 'onError observes it')

  const bug = await end('bug')
  t.equal(bug.status, 'completed', 'another throw is a tool error, as for a direct call')
  t.equal(bug.result.isError, true)
  t.notMatch(JSON.stringify(bug.result), /hook bug/, 'masked: the hook\'s message stays in the log')

  for (const mode of ['question', 'task']) {
    const replaced = await end(mode)
    t.equal(replaced.status, 'failed', `a replacement that is not a final result (${mode}) fails the task`)
    t.strictSame(replaced.error, { code: ErrorCode.InternalError, message: 'Internal error' })
  }
})

t.test('a task cancelled before its work ends runs no outcome hook', async (t) => {
  const { app, seen, open } = await build(t, record)
  const client = tasksClient(t, app)
  const taskId = (await client.call('work', { mode: 'slow' })).json.result.taskId as string
  await client.cancel(taskId)
  open()
  await new Promise((resolve) => setTimeout(resolve, 30))
  t.equal((await client.get(taskId)).json.result.status, 'cancelled')
  t.same(seen, [], 'the work\'s late result passes no hook')
})

t.test('inline runs (no extension declared, and the legacy era) pass the hooks once, with the work\'s result', async (t) => {
  const { app, seen } = await build(t, record)
  for (const era of ['modern', 'legacy'] as const) {
    seen.length = 0
    const client = injectClient(app, { era })
    const result = await client.callTool('work', { mode: era })
    t.same(result.content, [{ type: 'text', text: `done ${era}` }])
    t.same(seen.map((s) => [s.hook, s.op.era, s.value.content?.[0]?.text]), [['onResult', era, `done ${era}`]])
  }
  await t.rejects(injectClient(app, { era: 'legacy' }).callTool('work', { mode: 'mcp' }), { code: ErrorCode.InvalidParams })
  t.same(seen.at(-1)?.hook, 'onError')
})

t.test('with outcome hooks a task keeps its request: the whole body counts against tasks.maxArgumentBytes', async (t) => {
  const pad = 'p'.repeat(4000)
  for (const hooked of [false, true]) {
    const { app } = await build(t, (app, seen) => { if (hooked) record(app, seen) }, { tasks: { maxArgumentBytes: 4096 } })
    const client = tasksClient(t, app)
    const reply = await client.send('tools/call', { name: 'work', arguments: { mode: 'fast' }, pad }, { capabilities: TASKS_CAPS })
    if (hooked) t.same(reply.json.result.content, [{ type: 'text', text: 'done fast' }], 'with hooks: too much kept, runs inline')
    else t.equal(reply.json.result.resultType, 'task', 'without hooks: only the arguments count, a task')
  }
})
