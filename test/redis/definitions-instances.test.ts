/**
 * Definitions changed at runtime on instances sharing a real redis-server,
 * behind a plain round-robin balancer: a tool disabled or removed through one
 * instance is served by none once the call returns, every instance's listen
 * streams hear list_changed, and the documented pattern for adding (the same
 * `add` run on every instance, or a named change applied on one) serves the
 * new tool whichever instance answers. An instance started later serves the
 * same catalogue before its first request. An instance that cannot reach the
 * bus says so.
 */
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { redisScale } from '../../lib/redis/index.js'
import { startBalancer } from '../helpers/balancer.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { modernHeaders, modernRequest, openListen, post, readBody, SseReader, startApp } from '../streams/helpers.js'

const SECRET = 'a-request-state-secret-shared-by-every-instance'
const INSTANCES = 3

const redis = await startRedisServer()
t.teardown(redis.close)

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
/** The module every instance runs: the same code, as a deployment would. */
const module = () => defineTools({
  add: { input: Type.Object({ a: Type.Number(), b: Type.Number() }), handler: ({ a, b }) => text(String(a + b)) },
  echo: { input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say) }
})

let prefixes = 0
async function cluster (t: Test) {
  const prefix = `definitions-${++prefixes}:`
  const apps = []
  for (let i = 0; i < INSTANCES; i++) {
    const started = await startApp({ server: module(), requestState: { secret: SECRET }, scale: redisScale({ url: redis.url, prefix }), limits: { listen: { keepAliveMs: 0 } } })
    t.teardown(() => started.app.close())
    apps.push(started)
  }
  const balancer = await startBalancer({ upstreams: apps.map((a) => `http://127.0.0.1:${a.port}`) })
  t.teardown(() => balancer.close())
  return { apps, balancer }
}

let ids = 0
async function call (port: number, method: string, params: Record<string, unknown> = {}, name?: string): Promise<any> {
  const { res } = await post(port, modernRequest(++ids, method, params), modernHeaders(method, name))
  return JSON.parse(await readBody(res))
}
const listNames = async (port: number) => ((await call(port, 'tools/list')).result.tools as Array<{ name: string }>).map((tool) => tool.name)

const listen = (t: Test, port: number): Promise<SseReader> => openListen(t, port, { toolsListChanged: true })

t.test('disable and remove on one instance: no instance serves the tool once the call returns', async (t) => {
  const { apps, balancer } = await cluster(t)
  const streams = await Promise.all(apps.map((a) => listen(t, a.port)))

  await apps[1]!.app.mcp.tools.disable('add')
  // Straight after the call, through the balancer: every instance in turn.
  for (let i = 0; i < INSTANCES * 2; i++) {
    t.strictSame(await listNames(balancer.port), ['echo'], `list ${i} through the balancer`)
    const answer = await call(balancer.port, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, 'add')
    t.equal(answer.error?.code, -32602, `call ${i}: unknown tool`)
  }
  for (const [i, stream] of streams.entries()) {
    t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed', `instance ${i}'s stream heard it`)
  }
  await apps[2]!.app.mcp.tools.enable('add')
  for (let i = 0; i < INSTANCES; i++) t.strictSame(await listNames(balancer.port), ['add', 'echo'])
  await apps[0]!.app.mcp.tools.remove('echo')
  for (let i = 0; i < INSTANCES; i++) {
    t.strictSame(await listNames(balancer.port), ['add'])
    t.equal((await call(balancer.port, 'tools/call', { name: 'echo', arguments: { say: 'x' } }, 'echo')).error?.code, -32602)
  }
  for (const app of apps) t.equal(app.app.mcp.tools.has('echo'), false)
})

t.test('adding: the same add on every instance (shared configuration) serves it through the balancer', async (t) => {
  const { apps, balancer } = await cluster(t)
  const streams = await Promise.all(apps.map((a) => listen(t, a.port)))
  // The pattern: each instance runs the same code from the same configuration.
  const flag = { name: 'shout', description: 'Upper-cases' }
  for (const { app } of apps) {
    app.mcp.tools.add(flag.name, { description: flag.description, input: Type.Object({ say: Type.String() }), handler: ({ say }) => text(say.toUpperCase()) })
  }
  for (let i = 0; i < INSTANCES; i++) {
    t.strictSame(await listNames(balancer.port), ['add', 'echo', 'shout'])
    t.strictSame((await call(balancer.port, 'tools/call', { name: 'shout', arguments: { say: 'hi' } }, 'shout')).result.content, [{ type: 'text', text: 'HI' }])
  }
  for (const stream of streams) t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed')
})

t.test('an instance that cannot reach the bus says so (and applies the change itself)', async (t) => {
  const unreachable = {
    publish: () => Promise.reject(new Error('connection lost')),
    subscribe: () => () => {},
    close: async () => {}
  }
  const { app } = await startApp({ server: module(), scale: { eventBus: unreachable }, requestState: { secret: SECRET }, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  await t.rejects(app.mcp.tools.disable('add'), { code: 'FST_MCP_SCALE_UNAVAILABLE', message: /in effect on this instance.*connection lost/ })
  t.equal(app.mcp.tools.isEnabled('add'), false, 'in effect here all the same')
  await t.rejects(app.mcp.tools.remove('echo'), { code: 'FST_MCP_SCALE_UNAVAILABLE' })
  t.equal(app.mcp.tools.has('echo'), false)
})

/** An instance as a deployment starts it: registered, the named changes defined (the same code everywhere), then listening. */
async function instance (t: Test, prefix: string, define = true) {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: module(), serverInfo: { name: 'n', version: '1' }, requestState: { secret: SECRET }, scale: redisScale({ url: redis.url, prefix }), limits: { listen: { keepAliveMs: 0 } } })
  if (define) {
    app.mcp.changes.define('shout-v1', (mcp) => {
      const tool = { description: 'Upper-cases', input: Type.Object({ say: Type.String() }), handler: ({ say }: { say: string }) => text(say.toUpperCase()) }
      if (mcp.tools.has('shout')) mcp.tools.update('shout', tool)
      else mcp.tools.add('shout', tool)
    })
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, port: (app.server.address() as { port: number }).port }
}

t.test('an instance started later serves the catalogue the others serve, before its first request', async (t) => {
  const prefix = `later-${++prefixes}:`
  const a = await instance(t, prefix)
  const b = await instance(t, prefix)
  await a.app.mcp.tools.disable('add')
  await b.app.mcp.tools.remove('echo')
  await a.app.mcp.changes.apply('shout-v1')
  await b.app.mcp.tools.enable('add')
  await a.app.mcp.tools.disable('shout')
  // A rolling deploy: a new instance comes up after all that.
  const c = await instance(t, prefix)
  t.strictSame(c.app.mcp.tools.names(), ['add', 'shout'], 'at ready, before any request')
  t.equal(c.app.mcp.tools.isEnabled('shout'), false, 'applied in order: added, then disabled')
  for (const { port } of [a, b, c]) t.strictSame(await listNames(port), ['add'], `instance on ${port}`)
  // And later changes reach it like any instance.
  await b.app.mcp.tools.enable('shout')
  t.strictSame(await listNames(c.port), ['add', 'shout'])
  t.strictSame((await call(c.port, 'tools/call', { name: 'shout', arguments: { say: 'hi' } }, 'shout')).result.content, [{ type: 'text', text: 'HI' }])
})

t.test('a named change runs on every instance and is confirmed; an instance without its code makes the call reject', async (t) => {
  const prefix = `named-${++prefixes}:`
  const apps = [await instance(t, prefix), await instance(t, prefix)]
  const streams = await Promise.all(apps.map((a) => listen(t, a.port)))
  await apps[1]!.app.mcp.changes.apply('shout-v1')
  for (const { port } of apps) t.strictSame(await listNames(port), ['add', 'echo', 'shout'])
  for (const stream of streams) t.equal((await stream.nextMessage()).method, 'notifications/tools/list_changed')
  // Applied again: the code updates what it added (written to run again).
  await apps[0]!.app.mcp.changes.apply('shout-v1')

  const old = await instance(t, prefix, false)
  t.strictSame(old.app.mcp.tools.names(), ['add', 'echo'], 'without the code, nothing to run (logged)')
  await t.rejects(apps[0]!.app.mcp.changes.apply('shout-v1'), { code: 'FST_MCP_SCALE_UNAVAILABLE', message: /1 instance\(s\) could not apply it: no change is defined under "shout-v1" on this instance/ })
  await t.rejects(async () => apps[0]!.app.mcp.changes.apply('nope'), { code: 'FST_MCP_UNKNOWN_DEFINITION' })
  t.throws(() => apps[0]!.app.mcp.changes.define('late', () => {}), { code: 'FST_MCP_INVALID_OPTION', message: /before the app is ready/ })
})
