/**
 * A listen stream hears a shared change only once every instance serves it
 * (lib/definitions/settled-notices.ts). Three instances share a real
 * redis-server; one's bus delivery is held back (its listener paused, its
 * Redis subscription live, so PUBLISH still counts it). A change made on
 * another instance is applied by the third at once, but no stream (the
 * third's, the maker's) hears list_changed until the slow one applied it
 * too; then a `tools/list` on the slow one, right after the notification,
 * lists the new state. Without the hold, a client re-listing on hearing the
 * notification could be served the old list by the slow instance and never
 * be told again.
 *
 * "Not yet" is shown by order, not by waiting: a `resources/updated` marker
 * sent after the change reaches the stream first.
 */
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineResources, defineTools } from '../../lib/index.js'
import type { EventBus, McpEvent, McpEventListener } from '../../lib/parts/event-bus.js'
import { redisScale } from '../../lib/redis/index.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { modernHeaders, modernRequest, openListen, post, readBody, SseReader, startApp } from '../streams/helpers.js'

const SECRET = 'a-request-state-secret-shared-by-every-instance'
const MARKER = 'notes://marker'

const redis = await startRedisServer()
t.teardown(redis.close)

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const module = () => ({
  ...defineTools({ echo: { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say) } }),
  ...defineResources({ marker: { uri: MARKER, read: () => 'm' } })
})

/**
 * An instance's bus as the test sees it: events the endpoint hears can be
 * held back (`pause`, `resume`), and the test can wait until one of a type
 * was handed to the endpoint or held.
 */
function watchedBus (bus: EventBus) {
  let paused = false
  const held: McpEvent[] = []
  const waiters: Array<{ type: string, when: 'handled' | 'held', resolve: () => void }> = []
  let endpoint: McpEventListener | undefined
  const saw = (event: McpEvent, when: 'handled' | 'held'): void => {
    for (const w of waiters.filter((w) => w.type === event.type && w.when === when)) {
      waiters.splice(waiters.indexOf(w), 1)
      w.resolve()
    }
  }
  const watched: EventBus = {
    publish: (event) => bus.publish(event),
    subscribe: (listener) => {
      endpoint = listener
      return bus.subscribe((event) => {
        if (paused) {
          held.push(event)
          saw(event, 'held')
          return
        }
        listener(event)
        saw(event, 'handled')
      })
    },
    close: () => bus.close(),
    ready: () => bus.ready?.() ?? Promise.resolve(),
    onReconnect: (listener) => bus.onReconnect?.(listener) ?? (() => {})
  }
  return {
    bus: watched,
    pause: () => { paused = true },
    resume: () => {
      paused = false
      for (const event of held.splice(0)) {
        endpoint?.(event)
        saw(event, 'handled')
      }
    },
    /** Resolves once an event of `type` was handed to the endpoint (or held back, with 'held'). */
    next: (type: McpEvent['type'], when: 'handled' | 'held' = 'handled') => new Promise<void>((resolve) => { waiters.push({ type, when, resolve }) })
  }
}

/** An instance as a deployment starts it: registered, the named change defined, then listening. */
async function instance (t: Test, prefix: string) {
  const scale = redisScale({ url: redis.url, prefix })
  const watched = watchedBus(scale.eventBus)
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: module(), serverInfo: { name: 'n', version: '1' }, requestState: { secret: SECRET }, scale: { ...scale, eventBus: watched.bus }, limits: { listen: { keepAliveMs: 0 } } })
  app.mcp.changes.define('shout', (mcp) => {
    const tool = { input: Type.Object({ say: Type.String() }), handler: ({ say }: { say: string }) => text(say.toUpperCase()) }
    if (mcp.tools.has('shout')) mcp.tools.update('shout', tool)
    else mcp.tools.add('shout', tool)
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as { port: number }).port, ...watched }
}

let ids = 0
async function listNames (port: number): Promise<string[]> {
  const { res } = await post(port, modernRequest(++ids, 'tools/list'), modernHeaders('tools/list'))
  return (JSON.parse(await readBody(res)).result.tools as Array<{ name: string }>).map((tool) => tool.name)
}

const listen = (t: Test, port: number): Promise<SseReader> => openListen(t, port, { toolsListChanged: true, resourceSubscriptions: [MARKER] })

let prefixes = 0

for (const kind of ['a named change', 'a disable'] as const) {
  t.test(`${kind} made on one instance: streams hear list_changed only once the slow instance applied it`, async (t) => {
    const prefix = `settled-${++prefixes}:`
    const maker = await instance(t, prefix)
    const other = await instance(t, prefix)
    const slow = await instance(t, prefix)
    const streams = { maker: await listen(t, maker.port), other: await listen(t, other.port) }
    if (kind === 'a disable') {
      // Added everywhere first, and told.
      await maker.app.mcp.changes.apply('shout')
      for (const stream of Object.values(streams)) t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed')
    }
    const expected = kind === 'a named change' ? ['echo', 'shout'] : ['echo']

    slow.pause()
    const applied = Promise.all([other.next(kind === 'a named change' ? 'namedChange' : 'definitionChanged'), slow.next(kind === 'a named change' ? 'namedChange' : 'definitionChanged', 'held')])
    const change = kind === 'a named change' ? maker.app.mcp.changes.apply('shout') : maker.app.mcp.tools.disable('shout')
    await applied
    t.strictSame(await listNames(other.port), expected, 'the other instance applied it')
    t.strictSame((await listNames(slow.port)).includes('shout'), kind === 'a disable', 'the slow instance has not: it serves the old list')

    // A marker published after the change: a stream that heard list_changed already would have it first.
    const markerHeard = other.next('resourceUpdated')
    maker.app.mcp.notifyResourceUpdated(MARKER)
    await markerHeard
    for (const [name, stream] of Object.entries(streams)) {
      t.strictSame(await stream.nextMessage(), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: MARKER, _meta: { 'io.modelcontextprotocol/subscriptionId': 'L' } } }, `${name}: nothing told of the change while the slow instance lags`)
    }

    slow.resume()
    await change
    for (const [name, stream] of Object.entries(streams)) {
      t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed', `${name}: told once the slow instance applied it`)
      t.strictSame(await listNames(slow.port), expected, `${name}: a re-list on the slow instance, right after, serves the new list`)
    }
  })
}

t.test('an endpoint alone (its own in-memory bus) tells its streams at once, before the change\'s promise settles', async (t) => {
  const { app, port } = await startApp({ server: module(), limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const stream = await listen(t, port)
  const disabled = app.mcp.tools.disable('echo')
  app.mcp.notifyResourceUpdated(MARKER)
  await disabled
  t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed', 'the change first')
  t.equal((await stream.nextMessage()).method, 'notifications/resources/updated', 'then the marker sent after it')
})
