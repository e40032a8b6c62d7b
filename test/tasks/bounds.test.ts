// Bounds of the task store as the endpoint applies them: per owner (issue 11
// item 6: one caller cannot exhaust the store for everyone), in all, and in
// bytes (issue 11 item 1: the store bounds memory, not only count).
import t from 'tap'
import { ErrorCode } from '../../lib/index.js'
import { newProbe, tasksApp } from './fixtures.js'
import { tasksClient } from './helpers.js'

const MALLORY = { authorization: 'Bearer mallory' }
const ALICE = { authorization: 'Bearer alice' }

t.test('regression (issue 11 item 6): with maxTasks 5, one credential parking 5 tasks does not make another caller\'s task-only tool fail', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, { tasks: { maxTasks: 5 } }, probe)
  const client = tasksClient(t, app)
  const parked: string[] = []
  for (let i = 0; i < 5; i++) {
    const reply = await client.call('park', {}, { headers: MALLORY })
    if (reply.json.result?.resultType === 'task') parked.push(reply.json.result.taskId)
    else t.match(reply.json.error, { code: ErrorCode.InternalError, message: /Too many tasks in progress for this caller/ }, 'mallory\'s extra tasks are refused')
  }
  t.equal(parked.length, 1, 'the default per-owner bound (a tenth of maxTasks, at least 1) let mallory park one task')
  const alice = await client.call('must', {}, { headers: ALICE })
  t.equal(alice.json.result?.resultType, 'task', 'alice\'s task-only tool still gets a task')
  probe.release()
})

t.test('maxTasksPerOwner: an owner\'s finished tasks make room for its next ones; the total bound still holds', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, { tasks: { maxTasks: 3, maxTasksPerOwner: 2 } }, probe)
  const client = tasksClient(t, app)
  const a = (await client.call('maybe', { label: 'a' }, { headers: ALICE })).json.result.taskId
  await client.poll(a, undefined, { headers: ALICE })
  t.equal((await client.call('slow', {}, { headers: ALICE })).json.result.resultType, 'task')
  t.equal((await client.call('slow', {}, { headers: ALICE })).json.result.resultType, 'task', 'alice\'s finished task was evicted for her second running one')
  t.equal((await client.get(a, { headers: ALICE })).json.error?.code, ErrorCode.InvalidParams, 'the finished one is gone')
  const inline = (await client.call('maybe', { label: 'x' }, { headers: ALICE })).json.result
  t.equal(inline.resultType, 'complete', 'a third running task of alice: optional work runs inline')
  t.equal((await client.call('slow', {}, { headers: MALLORY })).json.result.resultType, 'task', 'another caller still gets the last place')
  t.equal((await client.call('maybe', { label: 'y' }, { headers: { authorization: 'Bearer carol' } })).json.result.resultType, 'complete', 'the store is full in all')
  probe.release()
})

t.test('maxTaskBytes: a result over the limit fails its task with a clear message; the store keeps bytes, not the handler\'s objects', async (t) => {
  const app = await tasksApp(t, { tasks: { maxTaskBytes: 4096 } })
  const client = tasksClient(t, app)
  const small = (await client.call('echo', { size: 1000 })).json.result.taskId
  t.match(await client.poll(small), { status: 'completed', result: { content: [{ type: 'text' }] } })
  const big = (await client.call('echo', { size: 10_000 })).json.result.taskId
  const task = await client.poll(big)
  t.equal(task.status, 'failed')
  t.equal(task.error.code, ErrorCode.InternalError)
  t.match(task.error.message, /result could not be kept: it is 10\d{3} bytes of JSON, over the limit of 4096 bytes per task/)
  t.equal(task.statusMessage, task.error.message)
})

t.test('maxStoredBytes: parked questions cannot exceed the byte budget; the handler hears why', async (t) => {
  const app = await tasksApp(t, { tasks: { maxTaskBytes: 4096, maxStoredBytes: 8192 } })
  const client = tasksClient(t, app)
  const caps = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} } }
  const statuses: string[] = []
  for (let i = 0; i < 4; i++) {
    const taskId = (await client.call('askBig', { size: 3000 }, caps)).json.result.taskId
    statuses.push((await client.poll(taskId, (task) => task.status !== 'working', caps)).status)
  }
  t.strictSame(statuses.slice(0, 2), ['input_required', 'input_required'], 'two 3 KB questions fit in 8 KB')
  t.equal(statuses[2], 'failed', 'the third cannot be kept: the task fails')
})

t.test('bounds options are checked at registration', async (t) => {
  for (const [tasks, field] of [
    [{ maxTasksPerOwner: 0 }, 'tasks.maxTasksPerOwner'],
    [{ maxTaskBytes: 1.5 }, 'tasks.maxTaskBytes'],
    [{ maxStoredBytes: -1 }, 'tasks.maxStoredBytes'],
    [{ maxTaskBytes: 2000, maxStoredBytes: 1000 }, 'tasks.maxStoredBytes'],
    [{ store: {} }, 'tasks.store']
  ] as const) {
    await t.rejects(tasksApp({ teardown: () => {} }, { tasks: tasks as never }), { code: 'FST_MCP_INVALID_OPTION', message: new RegExp(field.replace('.', '\\.')) }, field)
  }
})
