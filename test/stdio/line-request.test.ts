/**
 * What the app sees of a stdio line's request and response (lib/stdio/
 * line-request.ts, line-response.ts): the documented `request.ip`,
 * `request.protocol` and `request.host`, the status an `onResponse` hook
 * reads, a cancelled streaming call aborting `ctx.signal` and running the
 * app's `onRequestAbort` hooks, a host that stops reading dropping the
 * endpoint's stream at `maxStreamBufferBytes`, and a response the app
 * destroys answered with an error instead of silence or a crash.
 */
import { PassThrough } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type HandlerContext, serveStdio } from '../../lib/index.js'
import { collectMessages, eventually } from './helpers.js'

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {}
}

interface Tools {
  aborted: string[]
  progressSent: number
}

async function start (t: Test, app: FastifyInstance, tools: Tools, maxStreamBufferBytes?: number): Promise<{ input: PassThrough, output: PassThrough, messages: Array<Record<string, any>>, send: (message: object) => void, close: () => Promise<void> }> {
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'quick', inputSchema: { type: 'object' } }, { name: 'stream', inputSchema: { type: 'object' } }, { name: 'flood', inputSchema: { type: 'object' } }] }),
      callTool: async (params: { name: string }, ctx: HandlerContext) => {
        if (params.name === 'quick') return { content: [{ type: 'text', text: 'quick' }] }
        ctx.signal.addEventListener('abort', () => tools.aborted.push(String((ctx.signal.reason as Error | undefined)?.message)))
        if (params.name === 'stream') {
          // One progress notification (the answer becomes an event stream), then wait for the end.
          ctx.progress(1, 2, 'half way')
          tools.progressSent++
        } else {
          // Progress as fast as it can be written, until the endpoint gives up on the stream.
          for (let i = 1; i <= 5000 && !ctx.signal.aborted; i++) {
            ctx.progress(i, undefined, 'x'.repeat(1024))
            tools.progressSent++
            await new Promise((resolve) => setImmediate(resolve))
          }
        }
        if (!ctx.signal.aborted) await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        return { content: [{ type: 'text', text: 'stopped' }] }
      }
    },
    serverInfo: { name: 'stdio-line-test', version: '1.0.0' },
    ...(maxStreamBufferBytes === undefined ? {} : { limits: { maxStreamBufferBytes } })
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const server = await serveStdio(app, { input, output })
  t.teardown(() => server.close())
  return { input, output, messages, send: (message) => input.write(JSON.stringify(message) + '\n'), close: () => server.close() }
}

t.test('the request the app sees: ip, protocol, host, method and url documented for stdio; onResponse reads the status', async (t) => {
  const app = Fastify()
  const seen: Array<Record<string, unknown>> = []
  const statuses: number[] = []
  app.addHook('onRequest', async (request) => {
    seen.push({ ip: request.ip, protocol: request.protocol, host: request.host, method: request.method, url: request.url })
  })
  app.addHook('onResponse', async (_request, reply) => { statuses.push(reply.statusCode) })
  const h = await start(t, app, { aborted: [], progressSent: 0 })
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.messages.some((m) => m.id === 1))
  h.send({ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: MODERN_META } })
  await eventually(() => statuses.length === 2)
  t.same(seen[0], { ip: '127.0.0.1', protocol: 'http', host: 'localhost:80', method: 'POST', url: '/mcp' })
  t.equal(statuses[0], 200, 'onResponse reads the status of the answered call')
  t.equal(statuses[1], 202, 'onResponse reads the 202 of an accepted notification')
})

t.test('a cancelled streaming call: ctx.signal aborts, onRequestAbort hooks run, nothing more is written for it', async (t) => {
  const app = Fastify()
  const requestAborts: string[] = []
  app.addHook('onRequestAbort', async (request) => { requestAborts.push(String((request.body as { id?: unknown } | undefined)?.id)) })
  const tools = { aborted: [] as string[], progressSent: 0 }
  const h = await start(t, app, tools)
  h.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'stream', arguments: {}, _meta: { ...MODERN_META, progressToken: 'p5' } } })
  await eventually(() => h.messages.some((m) => m.method === 'notifications/progress'))
  t.match(h.messages.find((m) => m.method === 'notifications/progress'), { params: { progressToken: 'p5', progress: 1, total: 2, message: 'half way' } },
    'the progress notification of the event stream is written as it comes')
  h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, _meta: MODERN_META } })
  await eventually(() => tools.aborted.length === 1 && requestAborts.length === 1)
  t.same(tools.aborted, ['client disconnected'], 'ctx.signal aborted as for a client closing its stream')
  t.same(requestAborts, ['5'], 'the app\'s onRequestAbort hook ran, as for an HTTP client that disconnects')
  h.send({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.messages.some((m) => m.id === 6))
  t.notOk(h.messages.some((m) => m.id === 5), 'no answer for the cancelled request')
})

/** A connection whose host stops reading stdout, then calls the tool that sends progress as fast as it can be written. */
async function floodUnread (t: Test): Promise<{ h: Awaited<ReturnType<typeof start>>, tools: Tools }> {
  const tools = { aborted: [] as string[], progressSent: 0 }
  const h = await start(t, Fastify(), tools, 64 * 1024)
  h.output.pause()
  h.output.removeAllListeners('data')
  h.send({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'flood', arguments: {}, _meta: { ...MODERN_META, progressToken: 'p9' } } })
  return { h, tools }
}

t.test('a host that stops reading holds the event stream back until the endpoint drops it at maxStreamBufferBytes', async (t) => {
  const { h, tools } = await floodUnread(t)
  await eventually(() => tools.aborted.length === 1)
  t.same(tools.aborted, ['client disconnected'], 'the endpoint dropped the stream: the handler\'s signal aborted')
  t.ok(tools.progressSent < 5000, `the handler stopped early (${tools.progressSent} notifications)`)
  // What the host did not read: the output's buffer, one message the writer waits on, the response's queue and the stream's held frames.
  t.ok(h.output.readableLength < 256 * 1024, `the output holds little (${h.output.readableLength} bytes)`)
  // Closing waits for the messages still being written: the host reads again.
  h.output.resume()
})

t.test('closing while the host reads nothing: close ends, the messages it could not write are dropped', async (t) => {
  const { h, tools } = await floodUnread(t)
  await eventually(() => tools.progressSent > 64)
  const outcome = await Promise.race([
    h.close().then(() => 'closed'),
    new Promise((resolve) => setTimeout(() => resolve('still waiting after 5 s'), 5000))
  ])
  t.equal(outcome, 'closed', 'close does not wait on an output nobody reads')
  t.same(tools.aborted, ['client disconnected'], 'the call in flight was cancelled')
})

t.test('an event stream whose CRLF line ends are split across writes reads as the events it holds', async (t) => {
  const app = Fastify()
  app.addHook('onRequest', async (request, reply) => {
    if ((request.headers['mcp-name'] ?? '') !== 'stream') return
    reply.hijack()
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' })
    const progress = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } })
    const answer = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'split' }] } })
    // The answer's event has two data lines (joined by a newline, still one JSON text): a break between them would split it.
    const cut = answer.indexOf(',') + 1
    const [head, tail] = [answer.slice(0, cut), answer.slice(cut)]
    for (const piece of [`data: ${progress}\r`, '\n\r', `\ndata: ${head}\r`, `\ndata: ${tail}\r\n\r`, '\n']) reply.raw.write(piece)
    reply.raw.end()
  })
  const h = await start(t, app, { aborted: [], progressSent: 0 })
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stream', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.messages.some((m) => m.id === 1))
  t.same(h.messages.map((m) => m.method ?? m.id), ['notifications/progress', 1], 'two events, each read whole')
  t.match(h.messages[1], { result: { content: [{ text: 'split' }] } })
})

t.test('a response the app destroys gets an internal error, and the connection goes on', async (t) => {
  const app = Fastify()
  app.addHook('onRequest', async (request, reply) => {
    if ((request.headers['mcp-name'] ?? '') !== 'stream') return
    reply.hijack()
    reply.raw.destroy(new Error('dropped by the app'))
  })
  const h = await start(t, app, { aborted: [], progressSent: 0 })
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'stream', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.messages.some((m) => m.id === 1))
  t.match(h.messages.find((m) => m.id === 1), { error: { code: -32603, message: /ended the request without an answer/ } })
  h.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.messages.some((m) => m.id === 2))
  t.match(h.messages.find((m) => m.id === 2), { result: { content: [{ text: 'quick' }] } })
})

t.test('rawHeaders: the pairs of the headers as they arrived, made once per request as Node keeps them', async (t) => {
  const app = Fastify()
  const reads: Array<{ first: string[], second: string[], headers: Record<string, unknown> }> = []
  app.addHook('onRequest', async (request) => {
    const first = request.raw.rawHeaders
    request.headers['x-set-by-hook'] = 'later'
    reads.push({ first, second: request.raw.rawHeaders, headers: { ...request.headers } })
  })
  const h = await start(t, app, { aborted: [], progressSent: 0 })
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.messages.some((m) => m.id === 1))
  const [read] = reads
  if (read === undefined) return t.fail('the hook did not run')
  t.equal(read.second, read.first, 'a second read gives the same list, not a new one')
  t.notOk(read.second.includes('x-set-by-hook'), 'a header a hook set later is not in the list, as in Node\'s')
  const pairs = new Map<string, string>()
  for (let i = 0; i < read.first.length; i += 2) pairs.set(read.first[i] as string, read.first[i + 1] as string)
  t.equal(pairs.get('host'), 'localhost:80')
  t.equal(pairs.get('content-length'), read.headers['content-length'], 'the pairs carry the request\'s own headers')
})
