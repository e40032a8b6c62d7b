/**
 * Several endpoint instances sharing one real redis-server through
 * `redisScale()`, each a Fastify app on its own loopback port: a change
 * notified through one reaches the listen streams of the others; task status
 * events reach only the owner's streams that listen to that task; a legacy
 * answer POSTed to another instance reaches the waiting request; a legacy
 * log level set on one applies on all. Options: what registration refuses.
 */
import http from 'node:http'
import t, { type Test } from 'tap'
import { redisScale } from '../../lib/redis/index.js'
import { MemoryAnswerRouter, MemoryEventBus, type HandlerContext } from '../../lib/index.js'
import { freePort, startRedisServer } from '../helpers/redis-server.js'
import { registrationError } from '../helpers/mcp-fixtures.js'
import { delay, listenRequest, modernHeaders, openListen, post, readBody, SseReader, startApp, type TestOptions } from '../streams/helpers.js'

const SECRET = 'a-request-state-secret-shared-by-every-instance'
const LEGACY = { 'mcp-protocol-version': '2025-11-25' }

const redis = await startRedisServer()
t.teardown(redis.close)

const server = {
  listTools: () => ({ tools: [{ name: 'ask', inputSchema: { type: 'object' } }, { name: 'log', inputSchema: { type: 'object' } }] }),
  async callTool (params: { name: string }, ctx: HandlerContext) {
    if (params.name === 'log') {
      ctx.log('info', 'logged', 'test')
      return { content: [{ type: 'text', text: 'done' }] }
    }
    const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
    return { content: [{ type: 'text', text: `${answer.action}:${JSON.stringify(answer.content ?? {})}` }] }
  },
  listResources: () => ({ resources: [] }),
  readResource: () => ({ contents: [] }),
  setLogLevel: () => ({})
}

let prefixes = 0
/** `count` instances on the test's Redis, under a prefix of their own (tests do not hear each other). */
async function instances (t: Test, count: number, extra: Partial<TestOptions> = {}): Promise<Array<{ app: Awaited<ReturnType<typeof startApp>>['app'], port: number }>> {
  const prefix = `instances-${++prefixes}:`
  const started = []
  for (let i = 0; i < count; i++) {
    const instance = await startApp({ server, tasks: true, requestState: { secret: SECRET }, scale: redisScale({ url: redis.url, prefix }), limits: { listen: { keepAliveMs: 0 } }, ...extra })
    t.teardown(() => instance.app.close())
    started.push(instance)
  }
  return started
}

const listen = (t: Test, port: number, notifications: unknown, headers: Record<string, string> = {}, id: string | number = 'L1'): Promise<SseReader> => openListen(t, port, notifications, headers, id)

t.test('a notify through one instance reaches the listen streams of the others', async (t) => {
  const [a, b, c] = await instances(t, 3)
  const onB = await listen(t, b!.port, { toolsListChanged: true }, {}, 'on-b')
  const onC = await listen(t, c!.port, { toolsListChanged: true, resourceSubscriptions: ['notes://1'] }, {}, 'on-c')
  const onA = await listen(t, a!.port, { toolsListChanged: true }, {}, 'on-a')

  t.equal(a!.app.mcp.notifyToolsChanged(), 1, 'the notify reports the local stream it reached at once')
  for (const [reader, id] of [[onA, 'on-a'], [onB, 'on-b'], [onC, 'on-c']] as const) {
    t.same(await reader.nextMessage(), {
      jsonrpc: '2.0',
      method: 'notifications/tools/list_changed',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': id } }
    }, `stream ${id} heard it once, stamped with its own subscription id`)
  }
  b!.app.mcp.notifyResourceUpdated('notes://1')
  b!.app.mcp.notifyResourceUpdated('notes://other')
  t.same(await onC.nextMessage(), {
    jsonrpc: '2.0',
    method: 'notifications/resources/updated',
    params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'on-c' }, uri: 'notes://1' }
  }, 'filtering stays local: only the subscribed URI')
  await delay(100)
  t.equal(onA.events.length, 2, 'A heard nothing it did not ask for')
  t.equal(onB.events.length, 2)
})

t.test('task status events reach only the owner\'s streams that listen to the task, on every instance', async (t) => {
  const [a, b] = await instances(t, 2)
  const tasksMeta = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
  const listenWithTasks = async (port: number, id: string, taskIds: string[], authorization: string): Promise<SseReader> => {
    const agent = new http.Agent()
    t.teardown(() => agent.destroy())
    const body = listenRequest(id, { taskIds }) as { params: { _meta: Record<string, unknown> } }
    Object.assign(body.params._meta, tasksMeta)
    const { res } = await post(port, body, { ...modernHeaders('subscriptions/listen'), authorization }, agent)
    const reader = new SseReader(res)
    const ack = await reader.nextMessage()
    t.same(ack.params.notifications, { taskIds }, 'the taskIds filter is honoured')
    return reader
  }
  const owner = await listenWithTasks(b!.port, 'owner', ['task-1'], 'Bearer alice')
  const stranger = await listenWithTasks(b!.port, 'stranger', ['task-1'], 'Bearer mallory')
  const otherTask = await listenWithTasks(a!.port, 'other-task', ['task-2'], 'Bearer alice')
  const ownerOnA = await listenWithTasks(a!.port, 'owner-a', ['task-1'], 'Bearer alice')

  // The owner as the tasks service names it: the caller (a digest of the Authorization header).
  const { callerOf } = await import('../../lib/handler/caller.js')
  const aliceOwner = callerOf({ headers: { authorization: 'Bearer alice' } } as never)
  const task = { taskId: 'task-1', status: 'completed', createdAt: '2026-01-01T00:00:00Z', lastUpdatedAt: '2026-01-01T00:00:01Z', ttlMs: 1000, result: { content: [] } }
  // The tasks service publishes these; here a bus of the same prefix plays that part (a third instance, say).
  const publisher = redisScale({ url: redis.url, prefix: `instances-${prefixes}:` })
  t.teardown(() => Promise.all([publisher.eventBus.close(), publisher.answerRouter.close(), publisher.catalogStore.close()]))
  await publisher.eventBus.publish({ type: 'taskStatus', owner: aliceOwner, task })

  for (const [reader, id] of [[owner, 'owner'], [ownerOnA, 'owner-a']] as const) {
    t.same(await reader.nextMessage(), {
      jsonrpc: '2.0',
      method: 'notifications/tasks',
      params: { ...task, _meta: { 'io.modelcontextprotocol/subscriptionId': id } }
    }, `the owner's stream ${id} heard notifications/tasks`)
  }
  await delay(100)
  t.equal(stranger.events.length, 1, 'another caller listening to the same task id hears nothing')
  t.equal(otherTask.events.length, 1, 'the owner\'s stream for another task hears nothing')
})

t.test('a legacy answer POSTed to another instance reaches the waiting request', async (t) => {
  const [a, b, c] = await instances(t, 3)
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const { res } = await post(a!.port, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'ask', arguments: {} } }, LEGACY, agent)
  t.equal(res.headers['content-type'], 'text/event-stream')
  const reader = new SseReader(res)
  const ask = await reader.nextMessage()
  t.equal(ask.method, 'elicitation/create')
  t.type(ask.id, 'string')

  // A forged id and an id of no instance are acknowledged and reach nothing.
  for (const id of ['forged', `${String(ask.id).split('.')[0]}.00000000-0000-4000-8000-000000000000`]) {
    const forged = await post(c!.port, { jsonrpc: '2.0', id, result: { action: 'decline' } }, LEGACY, agent)
    t.equal(forged.res.statusCode, 202)
    await readBody(forged.res)
  }
  const answered = await post(b!.port, { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } }, LEGACY, agent)
  t.equal(answered.res.statusCode, 202, 'the other instance accepts the answer')
  await readBody(answered.res)
  const final = await reader.nextMessage()
  t.same(final, { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'accept:{"name":"Ada"}' }] } })
})

t.test('a legacy log level set on one instance applies on the others', async (t) => {
  const [a, b] = await instances(t, 2)
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const set = await post(a!.port, { jsonrpc: '2.0', id: 1, method: 'logging/setLevel', params: { level: 'info' } }, LEGACY, agent)
  t.same(JSON.parse(await readBody(set.res)), { jsonrpc: '2.0', id: 1, result: {} })
  let logged: SseReader | undefined
  // The level travels by pub/sub; give it a moment (bounded).
  for (let i = 0; i < 50 && logged === undefined; i++) {
    const call = await post(b!.port, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'log', arguments: {} } }, LEGACY, agent)
    if (call.res.headers['content-type'] === 'text/event-stream') logged = new SseReader(call.res)
    else { await readBody(call.res); await delay(20) }
  }
  t.ok(logged, 'the call on the other instance streams its log message')
  t.match(await logged!.nextMessage(), { method: 'notifications/message', params: { level: 'info', data: 'logged', logger: 'test' } })
  // The level is the (anonymous) caller's: another credential on either instance gets no log message.
  for (const instance of [a!, b!]) {
    const other = await post(instance.port, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'log', arguments: {} } }, { ...LEGACY, authorization: 'Bearer someone-else' }, agent)
    t.match(other.res.headers['content-type'], /^application\/json/, 'another caller: a plain answer, no log stream')
    await readBody(other.res)
  }
})

t.test('registration: a shared part needs requestState.secret; memory parts do not; bad parts are refused', async (t) => {
  const base = { server, serverInfo: { name: 'x', version: '1' } }
  const register = (opts: Record<string, unknown>) => registrationError({ ...base, ...opts })
  t.match(await register({ scale: redisScale({ url: redis.url }) }), { code: 'FST_MCP_REQUEST_STATE_SECRET_REQUIRED', message: /event bus/ })
  const { RedisAnswerRouter } = await import('../../lib/redis/index.js')
  t.match(await register({ scale: { answerRouter: new RedisAnswerRouter({ url: redis.url }) } }), { code: 'FST_MCP_REQUEST_STATE_SECRET_REQUIRED', message: /answer router/ })
  t.equal(await register({ scale: { eventBus: new MemoryEventBus(), answerRouter: new MemoryAnswerRouter() } }), undefined, 'memory parts need no secret')
  t.match(await register({ scale: { eventBus: { publish () {} } } }), { code: 'FST_MCP_INVALID_OPTION', message: /"scale\.eventBus".*publish, subscribe, close/ })
  t.match(await register({ scale: 'redis' }), { code: 'FST_MCP_INVALID_OPTION', message: /"scale"/ })
  t.match(await register({ eventBus: new MemoryEventBus() }), { code: 'FST_MCP_INVALID_OPTION', message: /"eventBus": unknown option.*scale/ })
  const ok = await register({ scale: redisScale({ url: redis.url }), requestState: { secret: SECRET } })
  t.equal(ok, undefined, 'with the secret, registration succeeds')
})

t.test('Redis unreachable at registration: a coded error within the connect timeout', async (t) => {
  const Fastify = (await import('fastify')).default
  const mcp = (await import('../../lib/index.js')).default
  const port = await freePort()
  const app = Fastify()
  const started = Date.now()
  await t.rejects(
    (async () => {
      await app.register(mcp, { server, serverInfo: { name: 'x', version: '1' }, requestState: { secret: SECRET }, scale: redisScale({ url: `redis://127.0.0.1:${port}`, connectTimeoutMs: 400 }) })
      await app.ready()
    })(),
    { code: 'FST_MCP_SCALE_UNAVAILABLE', message: /unreachable.*400 ms/ })
  t.ok(Date.now() - started < 2_000, `failed within a bounded time (${Date.now() - started} ms)`)
  await app.close()
})
