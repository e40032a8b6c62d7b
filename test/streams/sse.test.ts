import { test } from 'tap'
import { DEFAULT_MAX_STREAM_BUFFER_BYTES, sseFrame } from '../../lib/streams/sse-writer.js'
import { delay, listenRequest, modernHeaders, parseSse, post, SseReader, startApp } from './helpers.js'

const tools = {
  listTools: () => ({ tools: [] }),
  callTool: () => ({ content: [] })
}

test('sseFrame: one data line per message, ended by a blank line, even when strings hold newlines', async (t) => {
  const message = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'two\nlines\r\n:not a comment' } }
  const frame = sseFrame(JSON.stringify(message))
  t.ok(frame.startsWith('data: '))
  t.ok(frame.endsWith('\n\n'))
  t.equal(frame.slice(0, -2).split('\n').length, 1, 'no raw newline inside the event')
  t.same(parseSse(frame).map((e) => e.data), [message])
})

test('an SSE response carries the stream headers and the headers hooks already set', async (t) => {
  const { app, port } = await startApp({ server: tools, limits: { listen: { keepAliveMs: 0 } } }, (app) => {
    app.addHook('onRequest', async (_request, reply) => { reply.header('x-trace', 'abc') })
  })
  t.teardown(() => app.close())

  const { res } = await post(port, listenRequest(1, { toolsListChanged: true }), modernHeaders('subscriptions/listen'))
  t.equal(res.statusCode, 200)
  t.equal(res.headers['content-type'], 'text/event-stream')
  t.equal(res.headers['cache-control'], 'no-cache')
  t.equal(res.headers['x-accel-buffering'], 'no')
  t.equal(res.headers['x-trace'], 'abc', 'headers set before the takeover are kept')
  t.equal(res.headers['content-length'], undefined)
  const reader = new SseReader(res)
  const ack = await reader.next()
  t.match(ack.raw, /^data: \{.*\}$/, 'a single data line')
  res.destroy()
})

test('keep-alive comments are SSE comment lines that carry no event', async (t) => {
  const { app, port } = await startApp({ server: tools, limits: { listen: { keepAliveMs: 20 } } })
  t.teardown(() => app.close())
  const { res } = await post(port, listenRequest(1, {}), modernHeaders('subscriptions/listen'))
  const reader = new SseReader(res)
  await reader.next()
  const ping = await reader.next()
  t.equal(ping.raw, ': keep-alive')
  t.equal(ping.data, undefined)
  res.destroy()
})

test('a client that stops reading is dropped once its queue passes the limit', async (t) => {
  const { app, port } = await startApp({ server: tools, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const { res } = await post(port, listenRequest(1, { toolsListChanged: true }), modernHeaders('subscriptions/listen'))
  res.pause()
  await delay(20)
  t.equal(app.mcp.listenStreams, 1)
  // ~110 bytes per notification: enough to fill the socket buffers and then the limit
  const rounds = Math.ceil((DEFAULT_MAX_STREAM_BUFFER_BYTES * 40) / 110)
  let refused = false
  for (let i = 0; i < rounds && !refused; i++) refused = app.mcp.notifyToolsChanged() === 0
  t.ok(refused, 'the stream stopped taking messages')
  for (let i = 0; i < 100 && app.mcp.listenStreams > 0; i++) await delay(10)
  t.equal(app.mcp.listenStreams, 0, 'and left the registry')
  res.destroy()
})
