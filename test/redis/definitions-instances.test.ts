/**
 * Definitions changed at runtime on instances sharing a real redis-server,
 * behind a plain round-robin balancer: a tool disabled or removed through one
 * instance is served by none once the call returns, every instance's listen
 * streams hear list_changed, and the documented pattern for adding (the same
 * `add` run on every instance) serves the new tool whichever instance answers.
 * An instance that cannot reach the bus says so.
 */
import http from 'node:http'
import { Type } from '@sinclair/typebox'
import t, { type Test } from 'tap'
import { defineTools } from '../../lib/index.js'
import { redisScale } from '../../lib/redis/index.js'
import { startBalancer } from '../helpers/balancer.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { listenRequest, modernHeaders, modernRequest, post, readBody, SseReader, startApp } from '../streams/helpers.js'

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

async function listen (t: Test, port: number): Promise<SseReader> {
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const { res } = await post(port, listenRequest('L', { toolsListChanged: true }), modernHeaders('subscriptions/listen'), agent)
  const reader = new SseReader(res)
  t.equal((await reader.nextMessage()).method, 'notifications/subscriptions/acknowledged')
  return reader
}

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
