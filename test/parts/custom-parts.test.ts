/**
 * The endpoint on parts of your own (another engine than Redis): a custom
 * event bus given alone carries notify*() to the listen streams, even when it
 * delivers asynchronously; the endpoint awaits `ready()` at registration
 * (a failure is FST_MCP_SCALE_UNAVAILABLE, and the parts are closed) and
 * closes the parts with the app. The count notify*() returns follows the
 * bus's delivery rule (lib/parts/event-bus.ts): the streams reached inside
 * `publish`, exact with the default bus, 0 with a bus that delivers later.
 */
import http from 'node:http'
import t from 'tap'
import Fastify from 'fastify'
import mcpCapabilities, { type EventBus, type McpEvent, type McpEventListener, MemoryAnswerRouter, MemoryEventBus } from '../../lib/index.js'
import { registrationError } from '../helpers/mcp-fixtures.js'
import { listenRequest, modernHeaders, post, SseReader, startApp } from '../streams/helpers.js'

const server = { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) }
const SECRET = 'custom-parts-request-state-secret-0123456789'

/** Delivers on the next turn of the event loop, like a networked bus would. */
class AsyncBus implements EventBus {
  readonly published: McpEvent[] = []
  readonly listeners = new Set<McpEventListener>()
  closed = 0
  readyCalls = 0
  constructor (readonly failReady = false) {}
  async publish (event: McpEvent): Promise<void> {
    this.published.push(event)
    setImmediate(() => { for (const listener of this.listeners) listener(event) })
  }

  subscribe (listener: McpEventListener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  async close (): Promise<void> { this.closed++ }
  async ready (): Promise<void> {
    this.readyCalls++
    if (this.failReady) throw new Error('the bus engine is down')
  }
}

t.test('a custom asynchronous bus carries notifications to the listen streams', async (t) => {
  const bus = new AsyncBus()
  const { app, port } = await startApp({ server, scale: { eventBus: bus }, requestState: { secret: SECRET }, limits: { listen: { keepAliveMs: 0 } } })
  t.equal(bus.readyCalls, 1, 'ready() awaited at registration')
  t.equal(bus.listeners.size, 1, 'the endpoint subscribed once')
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const reader = new SseReader((await post(port, listenRequest('s1', { toolsListChanged: true }), modernHeaders('subscriptions/listen'), agent)).res)
  await reader.nextMessage()
  t.equal(app.mcp.notifyToolsChanged(), 0, 'nothing reached at once: this bus delivers later')
  t.same(bus.published, [{ type: 'listChanged', list: 'tools' }])
  t.same(await reader.nextMessage(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 's1' } } })
  t.throws(() => app.mcp.notifyResourceUpdated(3 as never), TypeError)
  await app.close()
  t.equal(bus.closed, 1, 'closed with the app, once')
  t.equal(bus.listeners.size, 0, 'and unsubscribed')
})

t.test('a part whose ready() fails fails registration with a coded error, and is closed', async (t) => {
  const bus = new AsyncBus(true)
  const app = Fastify()
  await t.rejects((async () => {
    await app.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' }, scale: { eventBus: bus }, requestState: { secret: SECRET } })
    await app.ready()
  })(), { code: 'FST_MCP_SCALE_UNAVAILABLE', message: /the bus engine is down/ })
  t.equal(bus.closed, 1)
  await app.close()
})

t.test('the default in-memory bus: notify reports the streams it reached', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  for (const id of ['a', 'b']) {
    const reader = new SseReader((await post(port, listenRequest(id, { toolsListChanged: true }), modernHeaders('subscriptions/listen'), agent)).res)
    await reader.nextMessage()
  }
  t.equal(app.mcp.notifyToolsChanged(), 2)
  t.equal(app.mcp.notifyPromptsChanged(), 0)
})

t.test('a part serves one endpoint: a second endpoint given it fails registration, claiming nothing', async (t) => {
  const bus = new MemoryEventBus()
  const router = new MemoryAnswerRouter()
  const first = Fastify()
  await first.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' }, scale: { eventBus: bus, answerRouter: router } })
  const register = (parts: Record<string, unknown>) => registrationError({ server, serverInfo: { name: 'y', version: '1' }, ...parts })
  t.match(await register({ scale: { eventBus: bus } }), { code: 'FST_MCP_INVALID_OPTION', message: /"scale\.eventBus".*already used by another endpoint/ })
  t.match(await register({ scale: { answerRouter: router } }), { code: 'FST_MCP_INVALID_OPTION', message: /"scale\.answerRouter".*redisScale\(\) once per endpoint/ })
  // A refused registration claims nothing: the fresh bus it was also given is still free.
  const fresh = new MemoryEventBus()
  t.ok(await register({ scale: { eventBus: fresh, answerRouter: router } }), 'refused for the router')
  t.equal(await register({ scale: { eventBus: fresh } }), undefined, 'the bus it was given alongside is still free')
  // The first endpoint still works with its parts, and they stay its own after it closes.
  const reply = await first.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'ping' }
  })
  t.equal(reply.statusCode, 200)
  await first.close()
  t.match(await register({ scale: { eventBus: bus } }), { code: 'FST_MCP_INVALID_OPTION' }, 'a closed endpoint\'s bus is closed: not reusable either')
})
