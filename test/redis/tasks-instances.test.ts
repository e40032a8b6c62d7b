// Two instances sharing one Redis task store (a real redis-server): a task
// created through one is read, given input and cancelled through the other,
// and the work running on the first hears of it. Bounds hold across both.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { ErrorCode } from '../../lib/index.js'
import { redisScale } from '../../lib/redis/index.js'
import { redisTaskStore } from '../../lib/redis/redis-task-store.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { newProbe, type Probe, tasksModule } from '../tasks/fixtures.js'
import { TASKS_CAPS, tasksClient } from '../tasks/helpers.js'

const server = await startRedisServer()
t.teardown(() => server.close())

const ASKING = { capabilities: { ...TASKS_CAPS, elicitation: {} } }
const TERMINAL = ['completed', 'failed', 'cancelled']

let n = 0
/**
 * Two endpoints, each with its own connection to the same Redis and key
 * prefix: by default sharing only the task store, or the parts `shared` gives.
 */
async function twoInstances (
  t: any,
  tasks: Record<string, unknown> = {},
  shared = (prefix: string): Record<string, unknown> => ({ scale: { taskStore: redisTaskStore({ url: server.url, prefix }) } })
): Promise<{ a: FastifyInstance, b: FastifyInstance, probeA: Probe }> {
  const prefix = `inst${++n}:`
  const probeA = newProbe()
  const make = (probe: Probe): Promise<FastifyInstance> => buildApp(t, {
    server: tasksModule(probe),
    tasks,
    // Shared state needs a shared requestState secret (FST_MCP_REQUEST_STATE_SECRET_REQUIRED otherwise).
    requestState: { secret: 'tasks-instances-request-state-secret-0123456789' },
    ...shared(prefix)
  })
  return { a: await make(probeA), b: await make(newProbe()), probeA }
}

/** Polls `tasks/get` until `done` (bounded: the safety-net resync runs every 2 s). */
async function until (client: ReturnType<typeof tasksClient>, taskId: string, done: (task: any) => boolean, options = {}): Promise<any> {
  const deadline = Date.now() + 8000
  for (;;) {
    const task = (await client.get(taskId, options)).json.result
    if (task !== undefined && done(task)) return task
    if (Date.now() > deadline) return task
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

t.test('created through one instance: read, answered and completed through the other', async (t) => {
  const { a, b } = await twoInstances(t)
  const viaA = tasksClient(t, a)
  const viaB = tasksClient(t, b)
  const created = await viaA.call('ask', {}, ASKING)
  const taskId = created.json.result.taskId
  const immediate = await viaB.get(taskId)
  t.equal(immediate.json.result?.taskId, taskId, 'readable through the other instance as soon as CreateTaskResult is out')
  const waiting = await until(viaB, taskId, (task) => task.status === 'input_required')
  t.strictSame(Object.keys(waiting.inputRequests), ['confirm'], 'the question asked on A shows on B')
  const ack = await viaB.update(taskId, { confirm: { action: 'accept', content: { ok: true } } })
  t.equal(ack.json.result?.resultType, 'complete')
  const done = await until(viaB, taskId, (task) => TERMINAL.includes(task.status))
  t.equal(done.status, 'completed', 'the work on A got the answer given through B')
  t.strictSame(done.result.content, [{ type: 'text', text: 'answer accept {"ok":true}' }])
  t.strictSame((await viaA.get(taskId)).json.result.result, done.result, 'both instances show the same result')
  t.equal((await viaB.get(taskId, { headers: { authorization: 'Bearer someone-else' } })).json.error?.code, ErrorCode.InvalidParams,
    'another caller finds nothing on either instance')
})

t.test('cancelled through the other instance: the work stops where it runs', async (t) => {
  const { a, b, probeA } = await twoInstances(t)
  const viaA = tasksClient(t, a)
  const viaB = tasksClient(t, b)
  const taskId = (await viaA.call('slow')).json.result.taskId
  t.equal((await viaB.cancel(taskId)).json.result?.resultType, 'complete')
  t.equal((await viaA.get(taskId)).json.result.status, 'cancelled', 'the record is cancelled for every instance at once')
  const deadline = Date.now() + 8000
  while (probeA.signals[0]?.aborted !== true && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25))
  t.equal(probeA.signals[0]?.aborted, true, 'the work on A saw its signal abort')
  probeA.release()
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal((await viaB.get(taskId)).json.result.status, 'cancelled', 'a late result does not undo the cancellation')
})

t.test('bounds are shared: per owner and in all, across instances', async (t) => {
  const { a, b, probeA } = await twoInstances(t, { maxTasks: 3, maxTasksPerOwner: 2 })
  const viaA = tasksClient(t, a)
  const viaB = tasksClient(t, b)
  const mallory = { headers: { authorization: 'Bearer mallory' } }
  t.equal((await viaA.call('park', {}, mallory)).json.result?.resultType, 'task')
  t.equal((await viaB.call('park', {}, mallory)).json.result?.resultType, 'task')
  t.match((await viaA.call('park', {}, mallory)).json.error, { code: ErrorCode.InternalError, message: /for this caller/ }, 'a third for mallory is refused on A')
  t.match((await viaB.call('park', {}, mallory)).json.error, { message: /for this caller/ }, 'and on B')
  t.equal((await viaB.call('park')).json.result?.resultType, 'task', 'another caller gets the last place')
  t.match((await viaA.call('park', {}, { headers: { authorization: 'Bearer carol' } })).json.error, { message: /^Too many tasks in progress; try again later/ }, 'then the store is full')
  probeA.release()
})

t.test('an instance that closes with work running marks its tasks failed for the others', async (t) => {
  const { a, b } = await twoInstances(t)
  const taskId = (await tasksClient(t, a).call('slow')).json.result.taskId
  await a.close()
  const task = (await tasksClient(t, b).get(taskId)).json.result
  t.match(task, { status: 'failed', error: { code: ErrorCode.InternalError, message: 'The server shut down before the task finished' } })
})

t.test('Redis lost while serving: task requests answer -32603 at once; Redis back: tasks work again without a restart', async (t) => {
  const own = await startRedisServer()
  t.teardown(() => own.close())
  const app = await buildApp(t, {
    server: tasksModule(newProbe()),
    tasks: true,
    requestState: { secret: 'tasks-instances-request-state-secret-0123456789' },
    scale: { taskStore: redisTaskStore({ url: own.url, prefix: 'fault:', commandTimeoutMs: 500 }) }
  })
  const client = tasksClient(t, app)
  const taskId = (await client.call('maybe', { label: 'f' })).json.result.taskId
  await own.stop()
  const started = Date.now()
  const get = await client.get(taskId)
  t.match(get, { status: 200, json: { id: 1, error: { code: ErrorCode.InternalError, message: 'Internal error' } } }, 'a JSON-RPC error with the request id')
  const call = await client.call('maybe', { label: 'g' })
  t.equal(call.json.error?.code, ErrorCode.InternalError, 'creating a task fails the same way')
  t.ok(Date.now() - started < 3000, `answered quickly (${Date.now() - started} ms)`)
  await own.restart()
  let created: any
  for (let i = 0; i < 100 && created?.resultType !== 'task'; i++) {
    created = (await client.call('maybe', { label: 'h' })).json.result
    if (created?.resultType !== 'task') await new Promise((resolve) => setTimeout(resolve, 50))
  }
  t.equal(created?.resultType, 'task', 'Redis back: tasks are created again')
  t.equal((await until(client, created.taskId, (task) => TERMINAL.includes(task.status))).status, 'completed')
})

t.test('with the shared event bus too (redisScale), answers and cancellations reach the work at once, not at the next resync', async (t) => {
  const { a, b, probeA } = await twoInstances(t, {}, (prefix) => ({ scale: redisScale({ url: server.url, prefix }) }))
  const viaA = tasksClient(t, a)
  const viaB = tasksClient(t, b)

  const taskId = (await viaA.call('ask', {}, ASKING)).json.result.taskId
  await until(viaB, taskId, (task) => task.status === 'input_required')
  let started = Date.now()
  await viaB.update(taskId, { confirm: { action: 'decline' } })
  const done = await until(viaB, taskId, (task) => TERMINAL.includes(task.status))
  const answerMs = Date.now() - started
  t.equal(done.status, 'completed')
  t.ok(answerMs < 1500, `the answer reached the work on A through the bus (${answerMs} ms; the resync runs every 2000 ms)`)

  const slow = (await viaA.call('slow')).json.result.taskId
  started = Date.now()
  await viaB.cancel(slow)
  while (probeA.signals[0]?.aborted !== true && Date.now() - started < 8000) await new Promise((resolve) => setTimeout(resolve, 10))
  const cancelMs = Date.now() - started
  t.equal(probeA.signals[0]?.aborted, true)
  t.ok(cancelMs < 1500, `the cancellation reached the work on A through the bus (${cancelMs} ms)`)
  probeA.release()
})
