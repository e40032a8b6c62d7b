/**
 * Regression: a tool defined with `output` could not run as a task. Its
 * handler's `runAsTask` answer (the `CreateTaskResult`) was validated against
 * the output schema, so the client got -32603 while the task had been created
 * and its work ran on unseen (an orphan); and the work's own result was never
 * shaped (validated, `structuredContent` + text JSON) as a direct call's is.
 *
 * Now the `CreateTaskResult` passes unshaped, the work's value is shaped like
 * a direct call's before the outcome hooks, a value that does not match
 * `output` fails the task with -32603 (a direct call answers the same -32603
 * JSON-RPC error), logged; and a task whose call answered anything else is
 * failed and its work stopped.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import { Ajv } from 'ajv'
import mcpCapabilities, { defineTools, ErrorCode, runAsTask, toolError } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { MODERN } from '../helpers/mcp-inject.js'
import { captureLogs, type LogRecord } from '../helpers/mcp-fixtures.js'
import { responseProblems } from '../helpers/spec-schemas.js'
import { tasksClient } from '../tasks/helpers.js'
import { MemoryTaskStore } from '../../lib/parts/task-store.js'

const Report = Type.Object({ total: Type.Number(), label: Type.String() }, { additionalProperties: false })
type ReportShape = { total: number, label: string }

interface Harness { app: FastifyInstance, records: LogRecord[], stopped: string[], started: string[] }

async function build (t: Test, setup: (app: FastifyInstance, seen: unknown[]) => void = () => {}): Promise<Harness & { seen: unknown[] }> {
  const { logger, records } = captureLogs('info')
  const stopped: string[] = []
  const started: string[] = []
  const tools = defineTools({
    report: {
      input: Type.Object({ mode: Type.String() }),
      output: Report,
      handler: ({ mode }, ctx) => runAsTask(ctx, async () => {
        if (mode === 'error') return toolError(`no report for ${mode}`)
        // data the tool does not declare: the server's fault
        if (mode === 'bad') return { total: 'three' } as unknown as ReportShape
        return { total: mode.length, label: mode }
      })
    },
    plain: {
      input: Type.Object({ mode: Type.String() }),
      handler: ({ mode }, ctx) => runAsTask(ctx, () => `plain ${mode}`)
    },
    forged: {
      output: Report,
      // a client-shaped CreateTaskResult is no created task
      handler: () => ({ resultType: 'task', taskId: 'forged' }) as unknown as ReportShape
    },
    regrets: {
      output: Report,
      handler: async (_args, ctx) => {
        await runAsTask(ctx, async (task) => {
          started.push((task as unknown as { taskId: string }).taskId)
          await new Promise((resolve) => task.signal.addEventListener('abort', resolve))
          stopped.push((task as unknown as { taskId: string }).taskId)
          return { total: 0, label: 'never' }
        })
        throw new Error('changed its mind after creating the task')
      }
    }
  })
  const app = Fastify({ logger })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'tasked-output', version: '1.0.0' }, server: { ...tools }, tasks: true, telemetry: false })
  const seen: unknown[] = []
  setup(app, seen)
  await app.ready()
  return { app, records, stopped, started, seen }
}

async function outputValidator (app: FastifyInstance, name: string) {
  const listed = await injectClient(app).listTools()
  const tool = listed.tools.find((x) => x.name === name)
  return new Ajv({ strict: false }).compile(tool?.outputSchema as object)
}

t.test('a defined tool with output answers the CreateTaskResult, and the task keeps the shaped result', async (t) => {
  const { app } = await build(t)
  const client = tasksClient(t, app)
  const created = await client.call('report', { mode: 'weekly' })
  t.equal(created.status, 200)
  t.notOk('error' in created.json, 'no -32603 for the CreateTaskResult')
  t.equal(created.json.result.resultType, 'task')
  t.strictSame(responseProblems(MODERN, created.json, undefined), [], 'a result response of the 2026-07-28 schema (it has no CreateTaskResult: its Task shape is checked by the tasks client)')
  t.notOk('structuredContent' in created.json.result, 'the CreateTaskResult passes unshaped')
  t.notOk('content' in created.json.result)

  const task = await client.poll(created.json.result.taskId)
  t.equal(task.status, 'completed')
  const validate = await outputValidator(app, 'report')
  t.ok(validate(task.result.structuredContent), 'structuredContent matches the listed outputSchema')
  t.strictSame(task.result.structuredContent, { total: 6, label: 'weekly' })
  t.strictSame(task.result.content, [{ type: 'text', text: JSON.stringify({ total: 6, label: 'weekly' }) }], 'the text block carries the same JSON')
})

t.test('work returning data that does not match output: the task fails with -32603 (a direct call: the same JSON-RPC error), logged', async (t) => {
  const { app, records } = await build(t)
  const client = tasksClient(t, app)
  const created = await client.call('report', { mode: 'bad' })
  t.equal(created.json.result.resultType, 'task', 'the task is created (the work has not run yet)')
  const taskId = created.json.result.taskId as string
  const task = await client.poll(taskId)
  t.equal(task.status, 'failed', 'never left working')
  t.strictSame(task.error, { code: ErrorCode.InternalError, message: 'Internal error' }, 'no detail of the mismatch reaches the client')
  const logged = records.find((r) => r.level === 50 && /does not match its output schema/.test(String(r.msg)))
  t.ok(logged, 'the mismatch is logged')
  t.equal(logged?.taskId, taskId, 'with the task it belongs to')
  t.ok((logged?.problems as string[]).some((p) => p.startsWith('total:')), 'the problems are in the log')

  const direct = await client.call('report', { mode: 'bad' }, { capabilities: {} })
  t.equal(direct.json.error?.code, ErrorCode.InternalError, 'inline: the same -32603, as a JSON-RPC error')
})

t.test('work returning toolError: the task completes with the tool execution error, unvalidated', async (t) => {
  const { app } = await build(t)
  const client = tasksClient(t, app)
  const task = await client.poll((await client.call('report', { mode: 'error' })).json.result.taskId)
  t.equal(task.status, 'completed')
  t.strictSame(task.result.content, [{ type: 'text', text: 'no report for error' }])
  t.equal(task.result.isError, true)
  t.notOk('structuredContent' in task.result)
})

t.test('the outcome hooks see the shaped result, as for a direct call', async (t) => {
  const { app, seen } = await build(t, (app, seen) => {
    app.mcp.addHook('onResult', (op, result) => { if (op.method === 'tools/call') seen.push(result) })
  })
  const client = tasksClient(t, app)
  const task = await client.poll((await client.call('report', { mode: 'hooked' })).json.result.taskId)
  t.equal(task.status, 'completed')
  t.strictSame(seen, [{ content: [{ type: 'text', text: '{"total":6,"label":"hooked"}' }], structuredContent: { total: 6, label: 'hooked' } }],
    'onResult saw structuredContent and the text block (not the CreateTaskResult, not the raw data)')
  seen.length = 0
  const bad = await client.poll((await client.call('report', { mode: 'bad' })).json.result.taskId)
  t.equal(bad.status, 'failed')
  t.same(seen, [], 'a result that failed its shaping reaches no onResult hook')
})

t.test('inline (no tasks extension declared, and the legacy era) the same tool answers the shaped result', async (t) => {
  const { app } = await build(t)
  const validate = await outputValidator(app, 'report')
  for (const era of ['modern', 'legacy'] as const) {
    const client = injectClient(app, { era })
    const result = await client.callTool('report', { mode: era })
    t.strictSame(result.structuredContent, { total: era.length, label: era }, `${era}: structuredContent`)
    t.ok(validate(result.structuredContent), `${era}: matches the outputSchema`)
    t.strictSame(result.content, [{ type: 'text', text: JSON.stringify(result.structuredContent) }], `${era}: and the text block`)
    await t.rejects(client.callTool('report', { mode: 'bad' }), { code: ErrorCode.InternalError }, `${era}: a mismatch is -32603`)
    const plain = await client.callTool('plain', { mode: era })
    t.strictSame(plain.content, [{ type: 'text', text: `plain ${era}` }], `${era}: a string is one text block`)
  }
})

t.test('without output, a string returned by the work is a text block in the task result', async (t) => {
  const { app } = await build(t)
  const client = tasksClient(t, app)
  const task = await client.poll((await client.call('plain', { mode: 'tasked' })).json.result.taskId)
  t.equal(task.status, 'completed')
  t.strictSame(task.result.content, [{ type: 'text', text: 'plain tasked' }])
})

t.test('an object shaped like a CreateTaskResult is not one: it is validated against output (-32603), no task exists', async (t) => {
  const { app, records } = await build(t)
  const client = tasksClient(t, app)
  const reply = await client.call('forged')
  t.equal(reply.json.error?.code, ErrorCode.InternalError)
  t.ok(records.some((r) => /does not match its output schema/.test(String(r.msg))))
  t.equal((await client.get('forged')).json.error?.code, ErrorCode.InvalidParams, 'no task by that id')
})

t.test('a call that created a task but answered something else leaves no orphan: the task fails and its work stops', async (t) => {
  const { app, records, started, stopped } = await build(t)
  const client = tasksClient(t, app)
  const reply = await client.call('regrets')
  t.equal(reply.json.result?.isError, true, 'the handler\'s throw is its answer (a tool execution error)')
  t.equal(started.length, 1, 'a task had been created')
  const taskId = started[0] as string
  const task = await client.poll(taskId)
  t.equal(task.status, 'failed', 'the task nobody was told of is failed')
  t.equal(task.error?.code, ErrorCode.InternalError)
  await new Promise((resolve) => setImmediate(resolve))
  t.strictSame(stopped, [taskId], 'its work was stopped (signal aborted)')
  t.ok(records.some((r) => r.level === 50 && r.taskId === taskId && /answered without it/.test(String(r.msg))), 'logged')
})

t.test('a call stopped while the store was creating its task (handler timeout) leaves no orphan either', async (t) => {
  const createdIds: string[] = []
  let ran = false
  class SlowStore extends MemoryTaskStore {
    override async create (owner: string) {
      await new Promise((resolve) => setTimeout(resolve, 150))
      const created = await super.create(owner)
      if (created.ok) createdIds.push(created.task.taskId)
      return created
    }
  }
  const tools = defineTools({
    report: {
      output: Report,
      handler: (_args, ctx) => runAsTask(ctx, () => { ran = true; return { total: 1, label: 'late' } })
    }
  })
  const { logger, records } = captureLogs('info')
  const app = Fastify({ logger })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    serverInfo: { name: 'slow-store', version: '1.0.0' },
    server: { ...tools },
    tasks: true,
    telemetry: false,
    limits: { handlerTimeoutMs: 40 },
    scale: { taskStore: (limits) => new SlowStore(limits) },
    requestState: { secret: 'a test secret of thirty-two bytes or more' }
  })
  await app.ready()
  const client = tasksClient(t, app)
  const reply = await client.call('report')
  t.ok(reply.json.error !== undefined, 'the call timed out with an error')
  await new Promise((resolve) => setTimeout(resolve, 250))
  t.equal(createdIds.length, 1, 'the store created the task after the call was stopped')
  const task = (await client.get(createdIds[0] as string)).json.result
  t.equal(task.status, 'failed', 'and it is failed at once')
  t.equal(task.error?.code, ErrorCode.InternalError)
  t.notOk(ran, 'its work never started')
  t.ok(records.some((r) => r.taskId === createdIds[0] && /answered without it/.test(String(r.msg))), 'logged')
})
