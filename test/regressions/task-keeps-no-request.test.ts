// Guards issue 11 item 1's decisions: inside a task `ctx.request` is gone
// (reading it throws, so nothing can keep the request alive by accident);
// a call whose arguments are over `tasks.maxArgumentBytes` runs inline,
// or is refused with -32602 when the task is required.
import t from 'tap'
import { canRunAsTask, runAsTask, type HandlerContext } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { TASKS_CAPS, tasksClient } from '../tasks/helpers.js'

const seen: string[] = []
const server = {
  listTools: () => ({ tools: ['peek', 'must', 'maybe'].map((name) => ({ name, inputSchema: { type: 'object' } })) }),
  callTool: ({ name }: { name: string }, ctx: HandlerContext) => {
    if (name === 'peek') {
      return runAsTask(ctx, async (task) => {
        try {
          return { content: [{ type: 'text', text: String(task.request.id) }] }
        } catch (err) {
          seen.push((err as Error).message)
          return { content: [{ type: 'text', text: 'no request' }] }
        }
      })
    }
    const could = canRunAsTask(ctx)
    return runAsTask(ctx, () => ({ content: [{ type: 'text', text: `ran, task possible: ${String(could)}` }] }), { required: name === 'must' })
  }
}

t.test('ctx.request throws inside a task', async (t) => {
  const app = await buildApp(t, { server, tasks: true })
  const client = tasksClient(t, app)
  const created = await client.call('peek', {}, { capabilities: TASKS_CAPS })
  const taskId = created.json.result.taskId as string
  await new Promise((resolve) => setTimeout(resolve, 20))
  const got = await client.get(taskId)
  t.strictSame(got.json.result.result.content, [{ type: 'text', text: 'no request' }])
  t.match(seen[0], /ctx\.request is not available inside a task/)
})

t.test('arguments over maxArgumentBytes: inline, or -32602 when a task is required', async (t) => {
  const app = await buildApp(t, { server, tasks: { maxArgumentBytes: 1024 } })
  const client = tasksClient(t, app)
  const big = { blob: 'x'.repeat(2000) }
  const inline = await client.call('maybe', big, { capabilities: TASKS_CAPS })
  t.strictSame(inline.json.result.content, [{ type: 'text', text: 'ran, task possible: false' }], 'ran inline; canRunAsTask said so')
  const small = await client.call('maybe', { blob: 'x' }, { capabilities: TASKS_CAPS })
  t.equal(small.json.result.resultType, 'task', 'small arguments still make a task')
  const refused = await client.call('must', big, { capabilities: TASKS_CAPS })
  t.equal(refused.status, 400)
  t.equal(refused.json.error.code, -32602)
  t.match(refused.json.error.message, /too large to run as a task/)
})

t.test('tasks.maxArgumentBytes is checked at registration', async (t) => {
  for (const bad of [0, -1, 1.5, 'x']) {
    await t.rejects(buildApp(t, { server, tasks: { maxArgumentBytes: bad as number } }), { code: 'FST_MCP_INVALID_OPTION' })
  }
})
