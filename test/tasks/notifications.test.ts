// Task status notifications (SEP-2663): `subscriptions/listen` with
// `notifications.taskIds` gets `notifications/tasks` carrying the task as
// `tasks/get` would show it, only on streams of the task's owner.
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { SUBSCRIPTION_ID_META } from '../../lib/streams/subscriptions.js'
import { modernHeaders, modernRequest, post, readBody, SseReader, startApp } from '../streams/helpers.js'
import { newProbe, type Probe, tasksModule } from './fixtures.js'
import { TASKS_CAPS, taskProblems, tasksClient } from './helpers.js'

const ALICE = { authorization: 'Bearer alice' }
const MALLORY = { authorization: 'Bearer mallory' }
const ASKING = { ...TASKS_CAPS, elicitation: {} }

async function listen (port: number, id: string | number, taskIds: unknown, headers: Record<string, string>): Promise<SseReader> {
  const body = modernRequest(id, 'subscriptions/listen', { notifications: { taskIds } }, { 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPS })
  const { res } = await post(port, body, { ...modernHeaders('subscriptions/listen'), ...headers })
  if (res.statusCode !== 200) throw new Error(`listen answered ${res.statusCode}: ${await readBody(res)}`)
  return new SseReader(res)
}

async function serve (t: any, probe: Probe = newProbe()): Promise<{ app: FastifyInstance, port: number }> {
  const started = await startApp({ server: tasksModule(probe), tasks: true, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => started.app.close())
  return started
}

/** A notification's params without `_meta`, checked as a SEP-2663 DetailedTask. */
function checkNotification (t: any, message: any, subscriptionId: string | number, taskId: string): any {
  t.equal(message.method, 'notifications/tasks')
  t.strictSame(message.params._meta, { [SUBSCRIPTION_ID_META]: subscriptionId }, 'stamped with the listen request id')
  const { _meta, ...task } = message.params
  t.equal(task.taskId, taskId)
  t.strictSame(taskProblems(task, true), [], `a DetailedTask (${String(task.status)})`)
  return task
}

t.test('a listener hears its task move through input_required, working and completed, as tasks/get shows it', async (t) => {
  const { app, port } = await serve(t)
  const client = tasksClient(t, app)
  const taskId = (await client.call('ask', {}, { capabilities: ASKING, headers: ALICE })).json.result.taskId
  await client.poll(taskId, (task) => task.status === 'input_required', { headers: ALICE })

  const stream = await listen(port, 'watch-1', [taskId, 'no-such-task', taskId], ALICE)
  const ack = await stream.nextMessage()
  t.equal(ack.method, 'notifications/subscriptions/acknowledged')
  t.strictSame(ack.params.notifications, { taskIds: [taskId, 'no-such-task'] }, 'the requested ids are acknowledged, once each')

  const update = await client.update(taskId, { confirm: { action: 'accept', content: { ok: true } } }, { headers: ALICE })
  t.strictSame(update.json.result.resultType, 'complete')
  const working = checkNotification(t, await stream.nextMessage(), 'watch-1', taskId)
  t.equal(working.status, 'working', 'the answer brings the task back to working')
  const completed = checkNotification(t, await stream.nextMessage(), 'watch-1', taskId)
  t.equal(completed.status, 'completed')
  const polled = (await client.get(taskId, { headers: ALICE })).json.result
  const { resultType, _meta, ...polledTask } = polled
  t.strictSame(completed, polledTask, 'the notification carries what tasks/get returns')
})

t.test('only the owner\'s streams hear a task; cancellation is announced', async (t) => {
  const probe = newProbe()
  const { app, port } = await serve(t, probe)
  const client = tasksClient(t, app)
  const taskId = (await client.call('slow', {}, { headers: ALICE })).json.result.taskId
  const alice = await listen(port, 1, [taskId], ALICE)
  const mallory = await listen(port, 2, [taskId], MALLORY)
  t.strictSame((await mallory.nextMessage()).params.notifications, { taskIds: [taskId] }, 'another caller is acknowledged alike: nothing tells whose tasks exist')
  await alice.nextMessage()
  t.equal((await client.cancel(taskId, { headers: MALLORY })).json.error?.code, -32602, 'nor can another caller cancel it')
  t.equal((await client.cancel(taskId, { headers: ALICE })).json.result?.resultType, 'complete')
  const cancelled = checkNotification(t, await alice.nextMessage(), 1, taskId)
  t.match(cancelled, { status: 'cancelled', statusMessage: 'Cancelled by the client' })
  t.equal(probe.signals[0]?.aborted, true, 'the work was told to stop')
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(mallory.events.length, 1, 'mallory\'s stream heard nothing but its acknowledgement')
  probe.release()
})

t.test('a status message (progress) is announced; a task id needs the extension and a well-formed filter', async (t) => {
  const { app, port } = await serve(t)
  const client = tasksClient(t, app)
  const bad = await post(port, modernRequest(3, 'subscriptions/listen', { notifications: { taskIds: 'x' } }, { 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPS }), modernHeaders('subscriptions/listen'))
  t.equal(bad.res.statusCode, 400)
  t.match(JSON.parse(await readBody(bad.res)).error, { code: -32602, message: /taskIds/ })
  const tooMany = await post(port, modernRequest(4, 'subscriptions/listen', { notifications: { taskIds: Array.from({ length: 1001 }, (_, i) => `t${i}`) } }, { 'io.modelcontextprotocol/clientCapabilities': TASKS_CAPS }), modernHeaders('subscriptions/listen'))
  t.equal(tooMany.res.statusCode, 400, 'a listen request may name at most 1000 tasks')
  await readBody(tooMany.res)

  const taskId = (await client.call('askBig', { size: 10 }, { capabilities: ASKING })).json.result.taskId
  await client.poll(taskId, (task) => task.status === 'input_required')
  const stream = await listen(port, 5, [taskId], {})
  await stream.nextMessage()
  const key = Object.keys((await client.get(taskId)).json.result.inputRequests)[0] as string
  await client.update(taskId, { [key]: { action: 'decline' } })
  t.equal(checkNotification(t, await stream.nextMessage(), 5, taskId).status, 'working')
  t.equal(checkNotification(t, await stream.nextMessage(), 5, taskId).status, 'completed')
})
