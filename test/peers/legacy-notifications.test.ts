/**
 * The official TypeScript SDK client v1 (`@modelcontextprotocol/sdk` 1.x, a
 * legacy client that opens the standalone GET stream after initialize)
 * against three instances sharing a real redis-server behind the plain
 * round-robin balancer: with its `listChanged` option it re-lists tools when
 * a runtime change is made on an instance that does not hold its stream, and
 * after the instance holding its stream goes away (a rolling restart), it
 * resumes on another one and is told lists may have changed, so a change
 * made while it was away is not lost.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import mcpCapabilities, { defineResources, defineTools } from '../../lib/index.js'
import { redisScale } from '../../lib/redis/index.js'
import { startBalancer } from '../helpers/balancer.js'
import { startRedisServer } from '../helpers/redis-server.js'

const SECRET = 'a-request-state-secret-shared-by-every-instance'
const redis = await startRedisServer()
t.teardown(redis.close)

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const module = () => ({
  ...defineTools({
    echo: { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say) },
    add: { input: Type.Object({ a: Type.Number(), b: Type.Number() }), handler: ({ a, b }) => text(String(a + b)) }
  }),
  ...defineResources({ note: { uri: 'notes://note/1', read: () => 'one' } })
})

async function instance (t: Test, prefix: string, sessions = false, port = 0): Promise<{ app: FastifyInstance, port: number }> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: module(), serverInfo: { name: 'balanced', version: '1' }, requestState: { secret: SECRET }, scale: redisScale({ url: redis.url, prefix }), sessions, limits: { listen: { keepAliveMs: 0 } } })
  app.mcp.changes.define('shout', (mcp) => {
    const tool = { input: Type.Object({ say: Type.String() }), handler: ({ say }: { say: string }) => text(say.toUpperCase()) }
    if (mcp.tools.has('shout')) mcp.tools.update('shout', tool)
    else mcp.tools.add('shout', tool)
  })
  await app.listen({ port, host: '127.0.0.1' })
  return { app, port: (app.server.address() as { port: number }).port }
}

async function until (what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

let prefixes = 0
async function deployment (t: Test, sessions = false) {
  const prefix = `legacy-peers-${++prefixes}:`
  const apps = [await instance(t, prefix, sessions), await instance(t, prefix, sessions), await instance(t, prefix, sessions)]
  const balancer = await startBalancer({ upstreams: apps.map((a) => `http://127.0.0.1:${a.port}`) })
  t.teardown(() => balancer.close())
  const lists: string[][] = []
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' }, {
    listChanged: {
      tools: {
        debounceMs: 0,
        onChanged: (error, tools) => {
          if (error === null && tools !== null) lists.push(tools.map((tool) => tool.name))
        }
      }
    }
  })
  const transport = new StreamableHTTPClientTransport(new URL(`${balancer.origin}/mcp`), {
    reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 }
  })
  const updates: string[] = []
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri) })
  await client.connect(transport)
  t.teardown(() => client.close())
  const holder = () => apps.findIndex((a) => a.app.mcp.listenStreams === 1)
  await until('the client opened its GET stream', () => holder() !== -1)
  return { apps, client, lists, updates, holder, transport, prefix }
}

t.test('SDK v1 client: tools/list_changed after a change made on another instance, through the balancer', async (t) => {
  const { apps, client, lists, holder } = await deployment(t)
  t.equal(client.getServerCapabilities()?.tools?.listChanged, true, 'legacy listChanged advertised')
  const other = apps[(holder() + 1) % apps.length]!
  await other.app.mcp.tools.disable('echo')
  await until('the client re-listed', () => lists.length >= 1)
  t.strictSame(lists.at(-1), ['add'])
  await other.app.mcp.changes.apply('shout')
  await until('the client re-listed again', () => lists.at(-1)?.includes('shout') === true)
  t.strictSame(lists.at(-1), ['add', 'shout'])
  t.strictSame((await client.callTool({ name: 'shout', arguments: { say: 'hi' } })).content, [{ type: 'text', text: 'HI' }])
})

t.test('SDK v1 client: its instance goes away, it resumes elsewhere and hears that lists may have changed', async (t) => {
  const { apps, lists, holder } = await deployment(t)
  const gone = holder()
  const others = apps.filter((_, i) => i !== gone)
  await apps[gone]!.app.close()
  // A change while the client has no stream: nothing could have told it.
  await others[0]!.app.mcp.tools.remove('add')
  await until('the client resumed on another instance', () => others.some((a) => a.app.mcp.listenStreams === 1))
  await until('the client re-listed', () => lists.at(-1)?.includes('add') === false)
  t.strictSame(lists.at(-1), ['echo'])
})

t.test('SDK v1 client, sessions on Redis: resources/updated after a subscribe, the update made on an instance that holds neither the stream nor (maybe) the subscribe', async (t) => {
  const { apps, client, updates, holder, transport } = await deployment(t, true)
  t.match(transport.sessionId, /^[A-Za-z0-9_-]{22}$/, 'a session was issued and kept by the client')
  t.equal(client.getServerCapabilities()?.resources?.subscribe, true, 'legacy resources.subscribe advertised with sessions')
  // Every request goes to the next instance: the subscribe lands wherever the balancer sends it.
  await client.subscribeResource({ uri: 'notes://note/1' })
  const other = apps[(holder() + 1) % apps.length]!
  other.app.mcp.notifyResourceUpdated('notes://note/2')
  other.app.mcp.notifyResourceUpdated('notes://note/1')
  await until('the client heard the update', () => updates.length >= 1)
  t.strictSame(updates, ['notes://note/1'], 'only what its session subscribed to')
  await client.unsubscribeResource({ uri: 'notes://note/1' })
  await new Promise((resolve) => setTimeout(resolve, 100))
  other.app.mcp.notifyResourceUpdated('notes://note/1')
  await client.ping()
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.strictSame(updates, ['notes://note/1'], 'nothing after unsubscribing')
})

t.test('SDK v1 client, sessions on Redis: a rolling restart of all three instances with the client connected throughout', async (t) => {
  const { apps, client, updates, transport, prefix } = await deployment(t, true)
  const session = transport.sessionId
  await client.subscribeResource({ uri: 'notes://note/1' })
  for (let i = 0; i < apps.length; i++) {
    const old = apps[i]!
    await old.app.close()
    apps[i] = await instance(t, prefix, true, old.port)
  }
  await until('the client holds a stream on a new instance', () => apps.some((a) => a.app.mcp.listenStreams === 1), 10_000)
  t.equal(transport.sessionId, session, 'the same session throughout')
  t.strictSame((await client.callTool({ name: 'echo', arguments: { say: 'still here' } })).content, [{ type: 'text', text: 'still here' }], 'served by the new instances')
  apps[0]!.app.mcp.notifyResourceUpdated('notes://note/1')
  await until('the client heard the update', () => updates.includes('notes://note/1'), 10_000)
  t.pass('its subscription, kept in Redis, outlived every instance')
})
