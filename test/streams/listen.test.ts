import http from 'node:http'
import Fastify from 'fastify'
import { test } from 'tap'
import mcpCapabilities from '../../lib/index.js'
import {
  delay, listenRequest, modernHeaders, modernRequest, post, quietBaseline, readBody,
  SERVER_INFO, settledResources, SseReader, startApp, watchIntervals
} from './helpers.js'
import { specErrors } from './spec.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const LISTEN = modernHeaders('subscriptions/listen')

/** Tools and resources (with subscribe), no prompts. */
const server = {
  listTools: () => ({ tools: [] }),
  callTool: () => ({ content: [] }),
  listResources: () => ({ resources: [] }),
  readResource: () => ({ contents: [] })
}

async function open (port: number, id: string | number, filter: unknown, agent: http.Agent | false = false): Promise<SseReader> {
  const { res } = await post(port, listenRequest(id, filter), LISTEN, agent)
  if (res.statusCode !== 200) throw new Error(`listen answered ${res.statusCode}: ${await readBody(res)}`)
  return new SseReader(res)
}

function checkSpec (t: any, messages: any[], listenResponse = false): void {
  for (const message of messages) t.equal(specErrors(message, '2026-07-28', listenResponse), null, `${message.method ?? 'response'} matches the 2026-07-28 schema`)
}

test('the first message acknowledges the honoured subset of the filter, with the subscription id', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  for (const id of ['listen-1', 9]) {
    const reader = await open(port, id, {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ['file:///a.txt', 'file:///b.txt', 'file:///a.txt'],
      someFutureField: true
    })
    const ack = await reader.nextMessage()
    t.same(ack, {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { [SUB]: id },
        notifications: { toolsListChanged: true, resourceSubscriptions: ['file:///a.txt', 'file:///b.txt'] }
      }
    }, 'prompts (not served) and false flags are left out; URIs deduplicated')
    checkSpec(t, [ack])
    reader.res.destroy()
  }
})

test('a server without resources honours no resource subscription', async (t) => {
  const { app, port } = await startApp({ server: { listTools: server.listTools, callTool: server.callTool }, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const reader = await open(port, 1, { resourcesListChanged: true, resourceSubscriptions: ['x:/1'], toolsListChanged: true })
  t.same((await reader.nextMessage()).params.notifications, { toolsListChanged: true })
  reader.res.destroy()
})

test('each stream gets only the notification types it asked for, tagged with its id', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } })
  const toolsOnly = await open(port, 'a', { toolsListChanged: true })
  const resourcesOnly = await open(port, 'b', { resourcesListChanged: true, resourceSubscriptions: ['file:///watched'] })
  await toolsOnly.nextMessage()
  await resourcesOnly.nextMessage()
  t.equal(app.mcp.listenStreams, 2)

  t.equal(app.mcp.notifyToolsChanged(), 1)
  t.equal(app.mcp.notifyPromptsChanged(), 0, 'nobody could ask for prompts')
  t.equal(app.mcp.notifyResourcesChanged(), 1)
  t.equal(app.mcp.notifyResourceUpdated('file:///watched'), 1)
  t.equal(app.mcp.notifyResourceUpdated('file:///other'), 0)

  t.same(await toolsOnly.nextMessage(), { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: 'a' } } })
  t.same(await resourcesOnly.nextMessage(), { jsonrpc: '2.0', method: 'notifications/resources/list_changed', params: { _meta: { [SUB]: 'b' } } })
  t.same(await resourcesOnly.nextMessage(), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { _meta: { [SUB]: 'b' }, uri: 'file:///watched' } })

  await app.close()
  await Promise.all([toolsOnly.ended, resourcesOnly.ended])
  const a = toolsOnly.events.map((e) => e.data)
  const b = resourcesOnly.events.map((e) => e.data)
  t.same(a.map((m) => m.method ?? 'result'), ['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'result'])
  t.same(b.map((m) => m.method ?? 'result'), ['notifications/subscriptions/acknowledged', 'notifications/resources/list_changed', 'notifications/resources/updated', 'result'])
  checkSpec(t, a.slice(0, -1))
  checkSpec(t, b.slice(0, -1))
  checkSpec(t, [a.at(-1), b.at(-1)], true)
})

test('quiet streams get keep-alive comments at the configured interval; 0 turns them off', async (t) => {
  // The interval is shown against a slower one, not the clock: a loaded machine delays both alike.
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 25 } } })
  t.teardown(() => app.close())
  const { app: slow, port: slowPort } = await startApp({ server, limits: { listen: { keepAliveMs: 30_000 } } })
  t.teardown(() => slow.close())
  const reader = await open(port, 1, { toolsListChanged: true })
  const slowReader = await open(slowPort, 1, { toolsListChanged: true })
  await Promise.all([reader.nextMessage(), slowReader.nextMessage()])
  for (let i = 0; i < 3; i++) t.equal((await reader.next(10_000)).comment, 'keep-alive', `keep-alive ${i + 1} at 25 ms`)
  t.same(slowReader.events.filter((e) => e.comment !== undefined), [], 'none yet on the stream whose interval is 30 s')
  reader.res.destroy()
  slowReader.res.destroy()

  const { app: silent, port: silentPort } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => silent.close())
  const quiet = await open(silentPort, 1, {})
  await quiet.nextMessage()
  await delay(150)
  t.same(quiet.events.filter((e) => e.comment !== undefined), [], 'no comments')
  quiet.res.destroy()
})

test('a notification fans out to many concurrent streams, each with its own id', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0, maxStreamsPerCaller: 200 } } })
  t.teardown(() => app.close())
  const agent = new http.Agent({ keepAlive: false, maxSockets: 200 })
  t.teardown(() => agent.destroy())
  const count = 150
  const readers = await Promise.all(Array.from({ length: count }, (_, i) => open(port, `s${i}`, { toolsListChanged: true }, agent)))
  await Promise.all(readers.map((r) => r.nextMessage()))
  t.equal(app.mcp.listenStreams, count)
  t.equal(app.mcp.notifyToolsChanged(), count)
  const got = await Promise.all(readers.map((r) => r.nextMessage()))
  t.ok(got.every((m, i) => m.method === 'notifications/tools/list_changed' && m.params._meta[SUB] === `s${i}`), 'every stream, its own id')
  for (const r of readers) r.res.destroy()
})

test('notify is safe with no listener, in every era, and after streams closed', async (t) => {
  for (const era of ['dual', 'modern', 'legacy'] as const) {
    const app = Fastify()
    await app.register(mcpCapabilities, { server, serverInfo: SERVER_INFO, era })
    await app.ready()
    t.equal(app.mcp.notifyToolsChanged(), 0, era)
    t.equal(app.mcp.notifyPromptsChanged(), 0)
    t.equal(app.mcp.notifyResourcesChanged(), 0)
    t.equal(app.mcp.notifyResourceUpdated('file:///x'), 0)
    t.throws(() => app.mcp.notifyResourceUpdated(42 as unknown as string), TypeError)
    await app.close()
    t.equal(app.mcp.notifyToolsChanged(), 0, `${era}, after close`)
  }
})

test('a client that disconnects is removed, and the keep-alive timer stops with the last stream', async (t) => {
  await quietBaseline()
  const intervals = watchIntervals()
  t.teardown(intervals.restore)
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 10_000 } } })
  t.teardown(() => app.close())
  const baseline = await quietBaseline(0)
  t.equal(intervals.live(), 0, 'no timer while nobody listens')
  const readers = [
    await open(port, 1, { toolsListChanged: true, resourceSubscriptions: ['file:///x'] }),
    await open(port, 2, { resourceSubscriptions: ['file:///x'] })
  ]
  await Promise.all(readers.map((r) => r.nextMessage()))
  t.equal(app.mcp.listenStreams, 2)
  t.equal(intervals.live(), 1, 'one shared keep-alive timer while streams are open')
  readers[0]?.res.destroy()
  for (let i = 0; i < 100 && app.mcp.listenStreams > 1; i++) await delay(10)
  t.equal(app.mcp.listenStreams, 1)
  t.equal(app.mcp.notifyResourceUpdated('file:///x'), 1, 'the other subscriber of the URI stays')
  t.equal(intervals.live(), 1)
  readers[1]?.res.destroy()
  for (let i = 0; i < 100 && app.mcp.listenStreams > 0; i++) await delay(10)
  t.equal(app.mcp.listenStreams, 0)
  t.equal(app.mcp.notifyToolsChanged(), 0)
  t.equal(app.mcp.notifyResourceUpdated('file:///x'), 0)
  t.equal(intervals.live(), 0, 'timer cleared with the last stream')
  const now = await settledResources(baseline, ['TCPSocketWrap'])
  t.equal(now.TCPSocketWrap ?? 0, baseline.TCPSocketWrap ?? 0, 'sockets released')
})

test('app.close() ends every stream with a complete result and leaves no timer, socket or server behind', async (t) => {
  const before = await quietBaseline()
  const intervals = watchIntervals()
  t.teardown(intervals.restore)
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 20 } } })
  const ids = ['x', 7, 'z']
  const readers = await Promise.all(ids.map((id) => open(port, id, { toolsListChanged: true })))
  await Promise.all(readers.map((r) => r.nextMessage()))
  await delay(50) // let keep-alives run

  const started = Date.now()
  await app.close()
  t.ok(Date.now() - started < 1000, 'close does not wait for the streams to time out')
  await Promise.all(readers.map((r) => r.ended))
  for (const [i, reader] of readers.entries()) {
    const id = ids[i]
    const last = reader.events.at(-1)?.data
    t.same(last, { jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: { [SUB]: id, 'io.modelcontextprotocol/serverInfo': SERVER_INFO } } })
    checkSpec(t, [last], true)
    t.equal(reader.rest, '', 'nothing after the final event')
    t.equal(reader.res.complete, true, 'the response ended cleanly')
  }
  t.equal(app.mcp.listenStreams, 0)
  t.equal(intervals.live(), 0, 'keep-alive timer cleared')
  const after = await settledResources(before, ['Timeout', 'TCPSocketWrap', 'TCPServerWrap'])
  for (const kind of ['Timeout', 'TCPSocketWrap', 'TCPServerWrap']) t.equal(after[kind] ?? 0, before[kind] ?? 0, `${kind} back to where it was`)
})

test('a bad filter is rejected with -32602 and no stream', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const bad = [undefined, null, [], 'tools', { toolsListChanged: 'yes' }, { resourceSubscriptions: 'file:///a' }, { resourceSubscriptions: [1] }]
  for (const notifications of bad) {
    const body = modernRequest(3, 'subscriptions/listen', notifications === undefined ? {} : { notifications })
    const { res } = await post(port, body, LISTEN)
    const answer = JSON.parse(await readBody(res))
    t.equal(res.statusCode, 400, JSON.stringify(notifications))
    t.equal(answer.error.code, -32602)
    t.equal(answer.id, 3)
  }
  t.equal(app.mcp.listenStreams, 0)
})

test('legacy advertises listChanged (its GET stream), has no listen method, and a GET without Accept: text/event-stream is refused', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, { server, serverInfo: SERVER_INFO })
  t.teardown(() => app.close())
  const init = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { accept: 'application/json, text/event-stream' },
    payload: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
  })
  const caps = init.json().result.capabilities
  t.equal(caps.tools.listChanged, true)
  t.equal(caps.resources.listChanged, true)
  t.equal(app.mcp.capabilities.modern.tools?.listChanged, true)

  const get = await app.inject({ method: 'GET', url: '/mcp', headers: { accept: 'application/json' } })
  t.equal(get.statusCode, 406)

  const legacyListen = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'mcp-protocol-version': '2025-11-25' },
    payload: { jsonrpc: '2.0', id: 2, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true } } }
  })
  t.equal(legacyListen.json().error.code, -32601)
})

test('limits.listen.keepAliveMs is checked at registration', async (t) => {
  for (const keepAliveMs of [-1, 1.5, '1000', 2 ** 31, Number.NaN]) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(mcpCapabilities, { server, serverInfo: SERVER_INFO, limits: { listen: { keepAliveMs: keepAliveMs as number } } }) }, { code: 'FST_MCP_INVALID_OPTION' }, String(keepAliveMs))
    await app.close()
  }
  const ok = Fastify()
  await ok.register(mcpCapabilities, { server, serverInfo: SERVER_INFO, limits: { listen: { keepAliveMs: 0 } } })
  await ok.close()
})
