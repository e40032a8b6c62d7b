// The tasks extension (SEP-2663) as the endpoint serves it with `tasks: true`:
// task creation, polling, input, cancellation, errors, gating, isolation.
import t from 'tap'
import { ErrorCode, TASKS_EXTENSION } from '../../lib/index.js'
import { buildApp, toolsModule } from '../helpers/mcp-fixtures.js'
import { mcpClient, META_SERVER_INFO } from '../helpers/mcp-inject.js'
import { newProbe, tasksApp, tasksModule, text } from './fixtures.js'
import { TASKS_CAPS, tasksClient } from './helpers.js'

const MISSING_TASKS = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }

t.test('discover advertises the extension; tasks/result and tasks/list stay unknown', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const discover = await client.send('server/discover', {})
  t.strictSame(discover.json.result.capabilities.extensions, { [TASKS_EXTENSION]: {} })
  for (const method of ['tasks/result', 'tasks/list']) {
    const reply = await client.send(method, { taskId: 'x' })
    t.equal(reply.status, 404, `${method}: 404`)
    t.equal(reply.json.error.code, ErrorCode.MethodNotFound, `${method}: -32601`)
  }
})

t.test('tasks: false routes no tasks/* method and never creates a task', async (t) => {
  const probe = newProbe()
  const app = await buildApp(t, { server: tasksModule(probe) })
  const client = tasksClient(t, app)
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const reply = await client.send(method, { taskId: 'x', inputResponses: {} })
    t.equal(reply.json.error.code, ErrorCode.MethodNotFound, `${method}: -32601`)
  }
  const reply = await client.call('maybe', { label: 'a' })
  t.strictSame(reply.json.result.content, text('maybe a (inline)').content, 'optional work runs inline')
  const must = await client.call('must')
  t.equal(must.json.error.code, ErrorCode.InvalidRequest, 'required work cannot be served: -32600, not a capability the client could add')
})

t.test('a request without the extension: tasks/* are -32021, optional work runs inline, required work is -32021', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, {}, probe)
  const client = tasksClient(t, app)
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const reply = await client.send(method, { taskId: 'gate', inputResponses: {} }, { capabilities: {} })
    t.equal(reply.status, 400)
    t.equal(reply.json.error.code, ErrorCode.MissingRequiredClientCapability, `${method}: -32021 before the task id is looked up`)
    t.strictSame(reply.json.error.data, MISSING_TASKS, `${method}: names the extension`)
  }
  const inline = await client.call('maybe', { label: 'b' }, { capabilities: {} })
  t.equal(inline.json.result.resultType, 'complete')
  t.strictSame(inline.json.result.content, text('maybe b (inline)').content)
  const must = await client.call('must', {}, { capabilities: {} })
  t.equal(must.status, 400)
  t.equal(must.json.error.code, ErrorCode.MissingRequiredClientCapability)
  t.strictSame(must.json.error.data, MISSING_TASKS)
  t.equal(probe.runs, 1, 'the required work never ran')
  const sync = await client.call('now')
  t.strictSame(sync.json.result.content, text('at once').content, 'a tool that never uses runAsTask answers as always')
  t.notOk('taskId' in sync.json.result)
})

t.test('create, poll, complete: exact shapes, configured ttlMs and pollIntervalMs', async (t) => {
  const app = await tasksApp(t, { tasks: { ttlMs: 120_000, pollIntervalMs: 250 } })
  const client = tasksClient(t, app)
  const created = await client.call('maybe', { label: 'c' })
  t.equal(created.status, 200)
  const task = created.json.result
  t.equal(task.resultType, 'task')
  t.equal(task.status, 'working')
  t.equal(task.ttlMs, 120_000)
  t.equal(task.pollIntervalMs, 250)
  t.strictSame(Object.keys(task).sort(), ['_meta', 'createdAt', 'lastUpdatedAt', 'pollIntervalMs', 'resultType', 'status', 'taskId', 'ttlMs'])
  t.ok(task._meta[META_SERVER_INFO], 'stamped with serverInfo like every modern result')
  t.match(task.taskId, /^[0-9a-f-]{36}$/, 'a UUID')
  const done = await client.poll(task.taskId)
  t.equal(done.status, 'completed')
  t.strictSame(done.result, { ...text('maybe c (task)'), resultType: 'complete' }, 'the inlined result is what the call would have returned')
  t.equal(done.createdAt, task.createdAt, 'createdAt is stable')
  const again = await client.get(task.taskId)
  t.strictSame(again.json.result, done, 'tasks/get is a pure read')
})

t.test('task ids: unknown -> -32602, not a string -> -32602, Mcp-Name must repeat it', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const unknown = await client.get('no-such-task')
  t.equal(unknown.status, 400)
  t.equal(unknown.json.error.code, ErrorCode.InvalidParams)
  for (const method of ['tasks/update', 'tasks/cancel']) {
    const reply = await client.send(method, { taskId: 'no-such-task', inputResponses: {} })
    t.equal(reply.json.error.code, ErrorCode.InvalidParams, `${method}: unknown id -> -32602`)
  }
  for (const taskId of [undefined, 7, null, {}]) {
    const reply = await client.send('tasks/get', { taskId })
    t.equal(reply.json.error.code, ErrorCode.InvalidParams, `taskId ${JSON.stringify(taskId)}: -32602`)
  }
  const created = await client.call('maybe', { label: 'd' })
  const taskId = created.json.result.taskId
  const mismatch = await client.get(taskId, { headers: { 'mcp-name': 'someone-else' } })
  t.equal(mismatch.json.error.code, ErrorCode.HeaderMismatch, 'Mcp-Name differs from taskId: -32020')
  const missing = await client.get(taskId, { headers: { 'mcp-name': undefined } })
  t.equal(missing.json.error.code, ErrorCode.HeaderMismatch, 'Mcp-Name missing: -32020')
})

t.test('tasks are bound to the credential that created them', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const alice = { authorization: 'Bearer alice' }
  const created = await client.call('maybe', { label: 'e' }, { headers: alice })
  const taskId = created.json.result.taskId
  t.equal((await client.poll(taskId, undefined, { headers: alice })).status, 'completed', 'the creator sees it')
  for (const headers of [{ authorization: 'Bearer mallory' }, {}]) {
    for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
      const reply = await client.send(method, { taskId, inputResponses: {} }, { headers })
      t.equal(reply.json.error.code, ErrorCode.InvalidParams, `${method} as ${JSON.stringify(headers)}: looks unknown`)
    }
  }
})

t.test('a custom owner function decides the binding', async (t) => {
  const app = await tasksApp(t, { tasks: { owner: (request) => String(request.headers['x-tenant']) } })
  const client = tasksClient(t, app)
  const created = await client.call('maybe', { label: 'f' }, { headers: { 'x-tenant': 'a', authorization: 'one' } })
  const taskId = created.json.result.taskId
  t.equal((await client.get(taskId, { headers: { 'x-tenant': 'a', authorization: 'two' } })).status, 200, 'same tenant, other token')
  t.equal((await client.get(taskId, { headers: { 'x-tenant': 'b', authorization: 'one' } })).json.error.code, ErrorCode.InvalidParams, 'other tenant')
})

t.test('cancel: ack only, the work\'s signal aborts, the status is cancelled and stays so; cancel again is the same ack', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, {}, probe)
  const client = tasksClient(t, app)
  const taskId = (await client.call('slow')).json.result.taskId
  const working = await client.poll(taskId, (task) => task.statusMessage !== undefined)
  t.equal(working.status, 'working')
  t.equal(working.statusMessage, 'halfway', 'a progress message becomes the statusMessage')
  for (let i = 0; i < 2; i++) {
    const ack = await client.cancel(taskId)
    t.strictSame(Object.keys(ack.json.result).sort(), ['_meta', 'resultType'], 'an empty ack')
    t.equal(ack.json.result.resultType, 'complete')
  }
  t.equal(probe.signals[0]?.aborted, true, 'the work\'s signal aborted')
  probe.release()
  await new Promise((resolve) => setImmediate(resolve))
  const task = (await client.get(taskId)).json.result
  t.equal(task.status, 'cancelled', 'a result arriving after the cancel is dropped')
  t.notOk('result' in task)
})

t.test('failures: McpError -> failed with that error; a throw -> completed with isError and its message; a non-object -> -32603; isError -> completed', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const proto = await client.poll((await client.call('proto')).json.result.taskId)
  t.equal(proto.status, 'failed')
  t.strictSame(proto.error, { code: ErrorCode.InvalidParams, message: 'bad input', data: { field: 'x' } })
  t.notOk('result' in proto)
  const boom = await client.poll((await client.call('boom')).json.result.taskId)
  t.equal(boom.status, 'completed', 'a throw is what the call would have answered without a task: a tool execution error')
  t.strictSame(boom.result.content, [{ type: 'text', text: 'secret internal detail' }])
  t.equal(boom.result.isError, true)
  const notObject = await client.poll((await client.call('notObject')).json.result.taskId)
  t.equal(notObject.status, 'failed', 'notObject: failed')
  t.strictSame(notObject.error, { code: ErrorCode.InternalError, message: 'Internal error' }, 'notObject: a generic internal error')
  const toolError = await client.poll((await client.call('toolError')).json.result.taskId)
  t.equal(toolError.status, 'completed', 'a tool error is a completed task')
  t.equal(toolError.result.isError, true)
})

t.test('security.toolErrors: "mask": a throw in a task is a tool execution error without its message', async (t) => {
  const app = await tasksApp(t, { security: { toolErrors: 'mask' } })
  const client = tasksClient(t, app)
  const boom = await client.poll((await client.call('boom')).json.result.taskId)
  t.equal(boom.status, 'completed')
  t.equal(boom.result.isError, true)
  t.strictSame(boom.result.content, [{ type: 'text', text: 'Tool "boom" failed with an internal error' }])
  t.notMatch(JSON.stringify(boom), /secret/, 'nothing internal leaks')
})

t.test('input inside a task: input_required with inputRequests, tasks/update answers, bad answers rejected, unknown keys ignored', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const caps = { ...TASKS_CAPS, elicitation: {} }
  const taskId = (await client.call('ask', {}, { capabilities: caps })).json.result.taskId
  const parked = await client.poll(taskId, (task) => task.status !== 'working', { capabilities: caps })
  t.equal(parked.status, 'input_required')
  t.strictSame(parked.inputRequests, {
    confirm: { method: 'elicitation/create', params: { message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } }
  })
  const bad = await client.update(taskId, { confirm: { action: 'maybe' } }, { capabilities: caps })
  t.equal(bad.json.error.code, ErrorCode.InvalidParams, 'a malformed answer: -32602')
  const notObject = await client.update(taskId, 'yes', { capabilities: caps })
  t.equal(notObject.json.error.code, ErrorCode.InvalidParams, 'inputResponses not an object: -32602')
  const ignored = await client.update(taskId, { other: { anything: true } }, { capabilities: caps })
  t.equal(ignored.json.result.resultType, 'complete', 'an unknown key is acknowledged and ignored')
  t.equal((await client.get(taskId, { capabilities: caps })).json.result.status, 'input_required', 'still waiting')
  const ack = await client.update(taskId, { confirm: { action: 'accept', content: { ok: true } } }, { capabilities: caps })
  t.strictSame(Object.keys(ack.json.result).sort(), ['_meta', 'resultType'], 'an empty ack')
  const done = await client.poll(taskId, undefined, { capabilities: caps })
  t.equal(done.status, 'completed')
  t.strictSame(done.result.content, text('answer accept {"ok":true}').content)
})

t.test('two questions at once: partial answers keep the task waiting on the rest', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const caps = { ...TASKS_CAPS, elicitation: {} }
  const taskId = (await client.call('two', {}, { capabilities: caps })).json.result.taskId
  const parked = await client.poll(taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2, { capabilities: caps })
  t.strictSame(Object.keys(parked.inputRequests).sort(), ['elicitation-1', 'elicitation-2'], 'default keys')
  await client.update(taskId, { 'elicitation-1': { action: 'accept', content: { name: 'a' } } }, { capabilities: caps })
  const half = (await client.get(taskId, { capabilities: caps })).json.result
  t.equal(half.status, 'input_required')
  t.strictSame(Object.keys(half.inputRequests), ['elicitation-2'], 'only the unanswered key remains')
  await client.update(taskId, { 'elicitation-1': { action: 'accept', content: { name: 'late' } }, 'elicitation-2': { action: 'accept', content: { name: 'b' } } }, { capabilities: caps })
  const done = await client.poll(taskId, undefined, { capabilities: caps })
  t.strictSame(done.result.content, text('a+b').content, 'an answered key is not answered twice')
})

t.test('a question the client cannot answer fails the task with -32021', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const task = await client.poll((await client.call('sample')).json.result.taskId)
  t.equal(task.status, 'failed')
  t.equal(task.error.code, ErrorCode.MissingRequiredClientCapability)
  t.strictSame(task.error.data, { requiredCapabilities: { sampling: {} } })
})

t.test('multi round-trip input first, then a task (SEP-2663 composition)', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const caps = { ...TASKS_CAPS, elicitation: {} }
  const round1 = (await client.call('mrtr', {}, { capabilities: caps })).json.result
  t.equal(round1.resultType, 'input_required')
  t.notOk('taskId' in round1)
  const round2 = (await client.send('tools/call', {
    name: 'mrtr',
    arguments: {},
    inputResponses: { user_name: { action: 'accept', content: { name: 'Alice' } } },
    requestState: round1.requestState
  }, { capabilities: caps })).json.result
  t.equal(round2.resultType, 'task')
  t.notOk('requestState' in round2, 'no requestState on the task')
  const done = await client.poll(round2.taskId, undefined, { capabilities: caps })
  t.strictSame(done.result.content, text('Hello, Alice!').content)
})

t.test('ttlMs: a task is gone once it elapses, and a running one is aborted', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, { tasks: { ttlMs: 60 } }, probe)
  const client = tasksClient(t, app)
  const taskId = (await client.call('slow')).json.result.taskId
  t.equal((await client.get(taskId)).json.result.status, 'working', 'there before the ttl')
  await new Promise((resolve) => setTimeout(resolve, 120))
  t.equal((await client.get(taskId)).json.error.code, ErrorCode.InvalidParams, 'gone after it')
  t.equal(probe.signals[0]?.aborted, true, 'the work was told to stop')
})

t.test('maxTasks: finished tasks are evicted first; when all run, optional work runs inline and required work fails', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, { tasks: { maxTasks: 1 } }, probe)
  const client = tasksClient(t, app)
  const first = (await client.call('maybe', { label: 'g' })).json.result.taskId
  await client.poll(first)
  const second = (await client.call('slow')).json.result
  t.equal(second.resultType, 'task', 'the finished task made room')
  t.equal((await client.get(first)).json.error.code, ErrorCode.InvalidParams, 'the finished task was evicted')
  const inline = (await client.call('maybe', { label: 'h' })).json.result
  t.equal(inline.resultType, 'complete', 'full of running tasks: optional work answers inline')
  t.strictSame(inline.content, text('maybe h (inline)').content)
  const must = await client.call('must')
  t.equal(must.json.error.code, ErrorCode.InternalError, 'required work cannot get a task')
  probe.release()
})

t.test('closing the app aborts running tasks and ends their questions', async (t) => {
  const probe = newProbe()
  const app = await buildApp({ teardown: () => {} }, { server: tasksModule(probe), tasks: true })
  const client = tasksClient(t, app)
  await client.call('slow')
  await client.call('ask', {}, { capabilities: { ...TASKS_CAPS, elicitation: {} } })
  await app.close()
  t.equal(probe.signals[0]?.aborted, true, 'the running task was aborted')
})

t.test('subscriptions/listen: task notifications need the extension', async (t) => {
  const app = await tasksApp(t)
  const client = tasksClient(t, app)
  const reply = await client.send('subscriptions/listen', { notifications: { taskIds: ['x'] } }, { capabilities: {} })
  t.equal(reply.status, 400)
  t.equal(reply.json.error.code, ErrorCode.MissingRequiredClientCapability)
  t.strictSame(reply.json.error.data, MISSING_TASKS)
})

t.test('legacy era: no tasks/* methods, optional work inline, required work -32600', async (t) => {
  const probe = newProbe()
  const app = await tasksApp(t, {}, probe)
  const client = mcpClient(t, app)
  const get = await client.legacy('tasks/get', { taskId: 'x' }, { protocolVersion: '2025-11-25' })
  t.equal(get.json.error.code, ErrorCode.MethodNotFound)
  const inline = await client.legacy('tools/call', { name: 'maybe', arguments: { label: 'i' } }, { protocolVersion: '2025-11-25' })
  t.strictSame(inline.json.result.content, text('maybe i (inline)').content)
  const must = await client.legacy('tools/call', { name: 'must', arguments: {} }, { protocolVersion: '2025-11-25' })
  t.equal(must.json.error.code, ErrorCode.InvalidRequest)
})

t.test('runAsTask outside a tasks endpoint (plain module) works inline', async (t) => {
  const app = await buildApp(t, { server: toolsModule(), tasks: true })
  const client = tasksClient(t, app)
  const reply = await client.call('anything')
  t.equal(reply.json.result.resultType, 'complete', 'a module that never calls runAsTask is unaffected by tasks: true')
})
