/**
 * Legacy clients against three instances sharing Redis (one redis-server in
 * legacy-notifications.test.ts, the three-master Redis Cluster in
 * legacy-notifications-cluster.test.ts) behind the plain round-robin
 * balancer, nothing sticky. Two official peers, each a legacy-era client
 * that opens the standalone GET stream after `notifications/initialized`
 * and sends back the `Mcp-Session-Id` issued at `initialize`:
 *
 * - the TypeScript SDK client v1 (`@modelcontextprotocol/sdk` 1.x);
 * - the TypeScript SDK client v2 (`@modelcontextprotocol/client` 2.x) with
 *   `versionNegotiation: { mode: 'legacy' }` (it sends `initialize` and never
 *   `server/discover`; its transport keeps the session id of the initialize
 *   answer and opens the GET stream once `notifications/initialized` is
 *   accepted, exactly as v1 does).
 *
 * Each is told of a runtime change made on an instance that does not hold its
 * stream (its `listChanged` option re-lists), resumes on another instance
 * after its own goes away and hears that lists may have changed, receives
 * `resources/updated` for what its session subscribed to (the subscribe
 * landing wherever the balancer sends it), and keeps its session and
 * subscription through a rolling restart of all three instances.
 *
 * Hostile, with the instances addressed directly: a session ended on one
 * instance while its stream is open on another ends that stream, and an id
 * replayed after DELETE or after expiry is 404 on every instance (no
 * instance's copy of the session outlives it).
 */
import http, { type IncomingMessage } from 'node:http'
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import mcpCapabilities, { defineResources, defineTools } from '../../lib/index.js'
import { type RedisConnectionOptions, redisScale } from '../../lib/redis/index.js'
import { startBalancer } from '../helpers/balancer.js'
import { readBody, SseReader } from '../streams/helpers.js'

const SECRET = 'a-request-state-secret-shared-by-every-instance'
const LEGACY = '2025-11-25'
const RECONNECTION = { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 20 }

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const module = () => ({
  ...defineTools({
    echo: { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say) },
    add: { input: Type.Object({ a: Type.Number(), b: Type.Number() }), handler: ({ a, b }) => text(String(a + b)) }
  }),
  ...defineResources({ note: { uri: 'notes://note/1', read: () => 'one' } })
})

/** What the scenarios need of a peer, the same for both SDK generations. */
interface LegacyPeer {
  readonly sessionId: () => string | undefined
  readonly capabilities: () => { tools?: { listChanged?: boolean }, resources?: { subscribe?: boolean } } | undefined
  readonly era: () => string | undefined
  readonly subscribe: (uri: string) => Promise<unknown>
  readonly unsubscribe: (uri: string) => Promise<unknown>
  readonly call: (name: string, args: Record<string, unknown>) => Promise<unknown>
  readonly ping: () => Promise<unknown>
  readonly close: () => Promise<void>
}

interface Heard {
  /** Every tool list the client's `listChanged` handler re-listed, in order. */
  readonly lists: string[][]
  /** Every `notifications/resources/updated` URI, in order. */
  readonly updates: string[]
}

interface PeerKind {
  readonly name: string
  readonly connect: (url: URL, heard: Heard) => Promise<LegacyPeer>
}

const onTools = (heard: Heard) => ({
  debounceMs: 0,
  onChanged: (error: Error | null, tools: Array<{ name: string }> | null) => {
    if (error === null && tools !== null) heard.lists.push(tools.map((tool) => tool.name))
  }
})

const PEERS: PeerKind[] = [
  {
    name: 'SDK client v1',
    async connect (url, heard) {
      const client = new ClientV1({ name: 'sdk-v1', version: '1.0.0' }, { listChanged: { tools: onTools(heard) } })
      const transport = new TransportV1(url, { reconnectionOptions: RECONNECTION })
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { heard.updates.push(n.params.uri) })
      await client.connect(transport)
      return {
        sessionId: () => transport.sessionId,
        capabilities: () => client.getServerCapabilities(),
        era: () => 'legacy',
        subscribe: (uri) => client.subscribeResource({ uri }),
        unsubscribe: (uri) => client.unsubscribeResource({ uri }),
        call: async (name, args) => (await client.callTool({ name, arguments: args })).content,
        ping: () => client.ping(),
        close: () => client.close()
      }
    }
  },
  {
    name: 'SDK client v2 in legacy mode',
    async connect (url, heard) {
      const client = new ClientV2({ name: 'sdk-v2', version: '2.0.0' }, { versionNegotiation: { mode: 'legacy' }, listChanged: { tools: onTools(heard) } })
      const transport = new TransportV2(url, { reconnectionOptions: RECONNECTION })
      client.setNotificationHandler('notifications/resources/updated', (n) => { heard.updates.push(n.params.uri) })
      await client.connect(transport)
      return {
        sessionId: () => transport.sessionId,
        capabilities: () => client.getServerCapabilities(),
        era: () => client.getProtocolEra(),
        subscribe: (uri) => client.subscribeResource({ uri }),
        unsubscribe: (uri) => client.unsubscribeResource({ uri }),
        call: async (name, args) => (await client.callTool({ name, arguments: args })).content,
        ping: () => client.ping(),
        close: () => client.close()
      }
    }
  }
]

/** One raw request to an instance, naming `session`. */
function send (port: number, method: 'POST' | 'GET' | 'DELETE', session: string | undefined, body?: unknown): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method,
      agent: false,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
        'mcp-protocol-version': LEGACY,
        ...(session === undefined ? {} : { 'mcp-session-id': session })
      }
    }, resolve)
    req.on('error', reject)
    req.end(body === undefined ? undefined : JSON.stringify(body))
  })
}

async function openSession (port: number): Promise<string> {
  const res = await send(port, 'POST', undefined, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  await readBody(res)
  return res.headers['mcp-session-id'] as string
}

/** The status each use of `session` gets (a POST and a GET), the answers read. */
async function uses (port: number, session: string): Promise<[number | undefined, number | undefined]> {
  const posted = await send(port, 'POST', session, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} })
  await readBody(posted)
  const got = await send(port, 'GET', session)
  got.destroy()
  return [posted.statusCode, got.statusCode]
}

async function until (what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/**
 * Runs every scenario for both peers as subtests of `t`, the instances
 * sharing the Redis that `connection` names; `label` names it in the titles.
 */
export async function legacyPeerScenarios (t: Test, connection: RedisConnectionOptions, label: string): Promise<void> {
  let prefixes = 0

  async function instance (t: Test, prefix: string, sessions: boolean | { idleTimeoutMs: number }, port = 0): Promise<{ app: FastifyInstance, port: number }> {
    const app = Fastify({ forceCloseConnections: true })
    t.teardown(() => app.close())
    await app.register(mcpCapabilities, { server: module(), serverInfo: { name: 'balanced', version: '1' }, requestState: { secret: SECRET }, scale: redisScale({ ...connection, prefix }), sessions, limits: { listen: { keepAliveMs: 0 } } })
    app.mcp.changes.define('shout', (mcp) => {
      const tool = { input: Type.Object({ say: Type.String() }), handler: ({ say }: { say: string }) => text(say.toUpperCase()) }
      if (mcp.tools.has('shout')) mcp.tools.update('shout', tool)
      else mcp.tools.add('shout', tool)
    })
    await app.listen({ port, host: '127.0.0.1' })
    return { app, port: (app.server.address() as { port: number }).port }
  }

  async function deployment (t: Test, peer: PeerKind, sessions = false) {
    const prefix = `legacy-peers-${++prefixes}:`
    const apps = [await instance(t, prefix, sessions), await instance(t, prefix, sessions), await instance(t, prefix, sessions)]
    const balancer = await startBalancer({ upstreams: apps.map((a) => `http://127.0.0.1:${a.port}`) })
    t.teardown(() => balancer.close())
    const heard: Heard = { lists: [], updates: [] }
    const client = await peer.connect(new URL(`${balancer.origin}/mcp`), heard)
    t.teardown(() => client.close())
    const holder = () => apps.findIndex((a) => a.app.mcp.listenStreams === 1)
    await until('the client opened its GET stream', () => holder() !== -1)
    return { apps, client, heard, holder, prefix }
  }

  for (const peer of PEERS) {
    await t.test(`${peer.name}, ${label}: tools/list_changed after a change made on another instance, through the balancer`, async (t) => {
      const { apps, client, heard, holder } = await deployment(t, peer)
      t.equal(client.era(), 'legacy', 'a legacy-era connection')
      t.equal(client.capabilities()?.tools?.listChanged, true, 'legacy listChanged advertised')
      const other = apps[(holder() + 1) % apps.length]!
      await other.app.mcp.tools.disable('echo')
      await until('the client re-listed', () => heard.lists.length >= 1)
      t.strictSame(heard.lists.at(-1), ['add'])
      await other.app.mcp.changes.apply('shout')
      await until('the client re-listed again', () => heard.lists.at(-1)?.includes('shout') === true)
      t.strictSame(heard.lists.at(-1), ['add', 'shout'])
      t.strictSame(await client.call('shout', { say: 'hi' }), [{ type: 'text', text: 'HI' }])
    })

    await t.test(`${peer.name}, ${label}: its instance goes away, it resumes elsewhere and hears that lists may have changed`, async (t) => {
      const { apps, heard, holder } = await deployment(t, peer)
      const gone = holder()
      const others = apps.filter((_, i) => i !== gone)
      await apps[gone]!.app.close()
      // A change while the client has no stream: nothing could have told it.
      await others[0]!.app.mcp.tools.remove('add')
      await until('the client resumed on another instance', () => others.some((a) => a.app.mcp.listenStreams === 1))
      await until('the client re-listed', () => heard.lists.at(-1)?.includes('add') === false)
      t.strictSame(heard.lists.at(-1), ['echo'])
    })

    await t.test(`${peer.name}, sessions on ${label}: resources/updated after a subscribe, the update made on an instance that holds neither the stream nor (maybe) the subscribe`, async (t) => {
      const { apps, client, heard, holder } = await deployment(t, peer, true)
      t.match(client.sessionId(), /^[A-Za-z0-9_-]{22}$/, 'a session was issued and kept by the client')
      t.equal(client.capabilities()?.resources?.subscribe, true, 'legacy resources.subscribe advertised with sessions')
      // Every request goes to the next instance: the subscribe lands wherever the balancer sends it.
      await client.subscribe('notes://note/1')
      const other = apps[(holder() + 1) % apps.length]!
      other.app.mcp.notifyResourceUpdated('notes://note/2')
      other.app.mcp.notifyResourceUpdated('notes://note/1')
      await until('the client heard the update', () => heard.updates.length >= 1)
      t.strictSame(heard.updates, ['notes://note/1'], 'only what its session subscribed to')
      await client.unsubscribe('notes://note/1')
      await new Promise((resolve) => setTimeout(resolve, 100))
      other.app.mcp.notifyResourceUpdated('notes://note/1')
      await client.ping()
      await new Promise((resolve) => setTimeout(resolve, 200))
      t.strictSame(heard.updates, ['notes://note/1'], 'nothing after unsubscribing')
    })

    await t.test(`${peer.name}, sessions on ${label}: a rolling restart of all three instances with the client connected throughout`, async (t) => {
      const { apps, client, heard, prefix } = await deployment(t, peer, true)
      const session = client.sessionId()
      await client.subscribe('notes://note/1')
      for (let i = 0; i < apps.length; i++) {
        const old = apps[i]!
        await old.app.close()
        apps[i] = await instance(t, prefix, true, old.port)
      }
      await until('the client holds a stream on a new instance', () => apps.some((a) => a.app.mcp.listenStreams === 1), 10_000)
      t.equal(client.sessionId(), session, 'the same session throughout')
      t.strictSame(await client.call('echo', { say: 'still here' }), [{ type: 'text', text: 'still here' }], 'served by the new instances')
      apps[0]!.app.mcp.notifyResourceUpdated('notes://note/1')
      await until('the client heard the update', () => heard.updates.includes('notes://note/1'), 10_000)
      t.pass(`its subscription, kept in ${label}, outlived every instance`)
    })
  }

  await t.test(`hostile, sessions on ${label}: a session ended on one instance while its stream is open on another; its id replayed after DELETE or after expiry is 404 on every instance`, async (t) => {
    const prefix = `legacy-peers-${++prefixes}:`
    // Wide margins: a loaded machine may take a while between two requests.
    const sessions = { idleTimeoutMs: 1500 }
    const apps = [await instance(t, prefix, sessions), await instance(t, prefix, sessions), await instance(t, prefix, sessions)]
    const [first, second, third] = apps as [typeof apps[0], typeof apps[0], typeof apps[0]]
    const ended = await openSession(first.port)
    const expired = await openSession(first.port)
    const res = await send(second.port, 'GET', ended)
    t.equal(res.statusCode, 200, 'the stream opens on another instance')
    const stream = new SseReader(res)
    t.teardown(() => res.destroy())
    await stream.next()
    const deleted = await send(third.port, 'DELETE', ended)
    await readBody(deleted)
    t.equal(deleted.statusCode, 204, 'ended on a third instance')
    await until('the stream on the second instance ended', () => second.app.mcp.listenStreams === 0)
    await stream.ended
    for (const [i, app] of apps.entries()) t.strictSame(await uses(app.port, ended), [404, 404], `after DELETE, instance ${i + 1}: POST and GET are 404`)
    // The second instance reads the session now, so it holds a copy; the copy must not outlive the session.
    t.strictSame(await uses(second.port, expired), [200, 200], 'the other session is alive (and read) on the second instance')
    await new Promise((resolve) => setTimeout(resolve, 2000))
    for (const [i, app] of apps.entries()) t.strictSame(await uses(app.port, expired), [404, 404], `after expiry, instance ${i + 1}: POST and GET are 404`)
    t.equal(apps.reduce((open, app) => open + app.app.mcp.listenStreams, 0), 0, 'no stream open for a dead session')
  })
}
