/**
 * serveStdio in this process, over PassThrough streams: cancellation in
 * both eras, the era decided per connection, stdin ending cancels what is
 * in flight (bounded) and closes the app, what `authorization` means over
 * stdio, the logger check, option checks, and the read side pausing when
 * the host does not read (no unbounded queue).
 */
import { PassThrough } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type HandlerContext, type StdioOptions, serveStdio } from '../../lib/index.js'
import { collectMessages, eventually } from './helpers.js'

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {}
}

interface Harness {
  app: FastifyInstance
  input: PassThrough
  output: PassThrough
  messages: Array<Record<string, any>>
  send: (message: object) => void
  /** The first message (already written or still to come) that `match` accepts. */
  next: (match: (m: Record<string, any>) => boolean) => Promise<Record<string, any>>
  signals: { aborted: string[], started: number }
  closed: string[]
  server: Awaited<ReturnType<typeof serveStdio>>
}

async function harness (t: Test, options: StdioOptions & { plugin?: object } = {}): Promise<Harness> {
  const signals = { aborted: [] as string[], started: 0 }
  const closed: string[] = []
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'wait', inputSchema: { type: 'object' } }, { name: 'quick', inputSchema: { type: 'object' } }] }),
      callTool: async (params: { name: string, arguments?: { big?: string } }, ctx: HandlerContext) => {
        if (params.name === 'quick') return { content: [{ type: 'text', text: params.arguments?.big ?? 'quick' }] }
        signals.started++
        // Waits until the endpoint gives up on it.
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => {
          signals.aborted.push(String((ctx.signal.reason as Error | undefined)?.message ?? ctx.signal.reason))
          resolve()
        }))
        return { content: [{ type: 'text', text: 'stopped' }] }
      }
    },
    serverInfo: { name: 'stdio-test', version: '1.0.0' },
    ...options.plugin
  })
  app.addHook('onClose', async () => { closed.push('onClose') })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const { plugin: _plugin, ...stdioOptions } = options
  const server = await serveStdio(app, { input, output, ...stdioOptions })
  t.teardown(() => server.close())
  return {
    app,
    input,
    output,
    messages,
    signals,
    closed,
    server,
    send: (message) => input.write(JSON.stringify(message) + '\n'),
    next: async (match) => {
      await eventually(() => messages.some(match))
      return messages.find(match) as Record<string, any>
    }
  }
}

t.test('modern: notifications/cancelled aborts the handler and nothing is written for the request', async (t) => {
  const h = await harness(t)
  h.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.signals.started === 1)
  h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } })
  await eventually(() => h.signals.aborted.length === 1)
  t.same(h.signals.aborted, ['client disconnected'], 'ctx.signal aborted as for a client closing its stream')
  h.send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: MODERN_META } })
  await h.next((m) => m.id === 8)
  t.notOk(h.messages.some((m) => m.id === 7), 'no answer for the cancelled request')
  t.equal(h.server.era, 'modern')
})

t.test('legacy: notifications/cancelled stops the request, no answer', async (t) => {
  const h = await harness(t)
  h.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
  await h.next((m) => m.id === 1)
  t.equal(h.server.era, 'legacy')
  h.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait', arguments: {} } })
  await eventually(() => h.signals.started === 1)
  h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } })
  await eventually(() => h.signals.aborted.length === 1)
  h.send({ jsonrpc: '2.0', id: 3, method: 'ping' })
  await h.next((m) => m.id === 3)
  t.notOk(h.messages.some((m) => m.id === 2), 'no answer for the cancelled request')
})

t.test('the era is decided per connection: after initialize, a modern request is refused (and the reverse)', async (t) => {
  const legacy = await harness(t)
  legacy.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
  const init = await legacy.next((m) => m.id === 1)
  t.same(init.result.capabilities.tools, { listChanged: true }, 'initialize advertises list changes, as over HTTP')
  legacy.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: MODERN_META } })
  t.match(await legacy.next((m) => m.id === 2), { error: { code: -32600, message: /speaks the legacy era/ } })
  t.equal(legacy.app.mcp.notifyToolsChanged(), 1, 'the connection holds the endpoint\'s standalone stream')
  await legacy.next((m) => m.method === 'notifications/tools/list_changed')
  t.strictSame(legacy.messages.find((m) => m.method === 'notifications/tools/list_changed'), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })

  const modern = await harness(t)
  modern.send({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN_META } })
  t.match(await modern.next((m) => m.id === 1), { result: { supportedVersions: ['2026-07-28'] } })
  modern.send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })
  t.match(await modern.next((m) => m.id === 2), { error: { code: -32600, message: /speaks the modern era/ } })
})

t.test('a request id already in flight is refused; the first request is unaffected', async (t) => {
  const h = await harness(t)
  h.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.signals.started === 1)
  h.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'quick', arguments: {}, _meta: MODERN_META } })
  t.match(await h.next((m) => m.id === 5), { error: { code: -32600, message: /already used by a request in flight/ } })
})

t.test('stdin ends: requests in flight get drainMs, then the app closes and cancels them; onClose runs', async (t) => {
  const h = await harness(t, { drainMs: 50 })
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait', arguments: {}, _meta: MODERN_META } })
  await eventually(() => h.signals.started === 1)
  h.input.end()
  await h.server.closed
  t.same(h.closed, ['onClose'], 'the app was closed')
  t.equal(h.signals.aborted.length, 1, 'the handler in flight was stopped')
  t.ok(h.messages.every((m) => m.id !== 1 || m.result !== undefined || m.error !== undefined), 'whatever was written for it is a complete answer')
})

t.test('authorization over stdio: refused without a token, the token checked like any other', async (t) => {
  const authorization = {
    resource: 'https://mcp.example.com/mcp',
    authorizationServers: ['https://auth.example.com'],
    verifyAccessToken: (token: string) => token === 'local-token' ? { subject: 'local-user', scopes: [] } : null
  }
  const app = Fastify()
  await app.register(mcpCapabilities, { server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) }, serverInfo: { name: 'x', version: '1' }, authorization })
  t.teardown(() => app.close())
  await t.rejects(serveStdio(app, { input: new PassThrough(), output: new PassThrough() }), { code: 'FST_MCP_STDIO_AUTHORIZATION' },
    'a configured policy is never bypassed')

  const allowed = await harness(t, { plugin: { authorization }, headers: { Authorization: 'Bearer local-token' } })
  allowed.send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } })
  t.match(await allowed.next((m) => m.id === 1), { result: { tools: [{ name: 'wait' }, { name: 'quick' }] } })

  const refused = await harness(t, { plugin: { authorization }, headers: { authorization: 'Bearer wrong' } })
  refused.send({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: { _meta: MODERN_META } })
  t.match(await refused.next((m) => m.id === 9), { jsonrpc: '2.0', id: 9, error: { code: -32600 } }, 'refused before the body was read, answered with the request id')
})

t.test('a logger writing to stdout is refused with the fix; options are checked', async (t) => {
  const app = Fastify({ logger: { level: 'silent' } })
  await app.register(mcpCapabilities, { server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) }, serverInfo: { name: 'x', version: '1' } })
  t.teardown(() => app.close())
  await t.rejects(serveStdio(app, { input: new PassThrough() }), { code: 'FST_MCP_STDIO_LOGGER_ON_STDOUT', message: /logger: \{ stream: process\.stderr \}/ })
  await t.rejects(serveStdio(app, { input: new PassThrough(), output: new PassThrough(), maxInFlight: 0 }), { code: 'FST_MCP_INVALID_OPTION', message: /serveStdio options\.maxInFlight/ })
  await t.rejects(serveStdio(app, { input: new PassThrough(), output: new PassThrough(), drainMS: 5 } as StdioOptions), { code: 'FST_MCP_INVALID_OPTION', message: /did you mean "drainMs"/ })
  await t.rejects(serveStdio(Fastify(), { input: new PassThrough(), output: new PassThrough() }), { code: 'FST_MCP_STDIO_NO_ENDPOINT' })
})

t.test('a host that does not read: reading pauses at maxInFlight, nothing queues up', async (t) => {
  const h = await harness(t, { maxInFlight: 4 })
  // A host that never reads: the output fills at once.
  h.output.pause()
  h.output.removeAllListeners('data')
  const big = 'x'.repeat(64 * 1024)
  const lines = 200
  for (let i = 0; i < lines; i++) h.input.write(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'quick', arguments: { big }, _meta: MODERN_META } }) + '\n')
  await new Promise((resolve) => setTimeout(resolve, 500))
  // Each answer echoes its 64 KiB: the output is full after one, then maxInFlight requests wait to write.
  const unread = h.input.writableLength + h.input.readableLength
  t.ok(unread > (lines - 20) * big.length, `most of the input is still unread (${unread} bytes waiting in the pipe)`)
  t.ok(h.output.readableLength < 20 * big.length, `the output holds a few answers only (${h.output.readableLength} bytes)`)
  h.output.resume()
  let answered = 0
  h.output.on('data', (chunk: Buffer) => { answered += chunk.toString().split('\n').length - 1 })
  await eventually(() => answered >= lines, 20_000)
  t.equal(answered, lines, 'once the host reads, every request is answered')
})

t.test('maxMessageBytes defaults to the endpoint body limit (fastify.mcp.bodyLimit); an explicit value wins', async (t) => {
  const h = await harness(t, { plugin: { limits: { bodyLimit: 2048 } } })
  t.equal(h.app.mcp.bodyLimit, 2048, 'fastify.mcp.bodyLimit is limits.bodyLimit')
  h.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'quick', arguments: { big: 'x'.repeat(4096) }, _meta: MODERN_META } })
  t.strictSame(await h.next((m) => m.id === 1), { jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Request body is too large (more than 2048 bytes)' } },
    'refused by the line reader at the endpoint limit')
  h.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'quick', arguments: { big: 'y'.repeat(1000) }, _meta: MODERN_META } })
  t.match(await h.next((m) => m.id === 2), { result: { content: [{ text: 'y'.repeat(1000) }] } }, 'a line under it passes')

  const explicit = await harness(t, { plugin: { limits: { bodyLimit: 2048 } }, maxMessageBytes: 512 })
  explicit.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'quick', arguments: { big: 'z'.repeat(1000) }, _meta: MODERN_META } })
  t.match(await explicit.next((m) => m.id === 3), { error: { code: -32600, message: 'Request body is too large (more than 512 bytes)' } })
})

t.test('every line runs the app\'s hooks with its own headers: Mcp-Param-* follow each call\'s arguments, never an earlier call\'s', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'route', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } }, { name: 'quick', inputSchema: { type: 'object' } }] }),
      callTool: (params: { name: string, arguments?: { region?: string } }) => ({ content: [{ type: 'text', text: `${params.name}:${params.arguments?.region ?? '-'}` }] })
    },
    serverInfo: { name: 'stdio-test', version: '1.0.0' }
  })
  const requests: string[] = []
  const handled: string[] = []
  app.addHook('onRequest', async (request) => { requests.push(`${String(request.headers['mcp-method'])} ${String(request.headers['mcp-name'])}`) })
  app.addHook('preHandler', async (request) => {
    const body = request.body as { id?: unknown }
    handled.push(`${String(body.id)} ${String(request.headers['mcp-name'])} ${String(request.headers['mcp-param-region'] ?? '-')}`)
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages: Array<Record<string, any>> = []
  output.on('data', (chunk: Buffer) => { for (const line of chunk.toString().split('\n')) if (line !== '') messages.push(JSON.parse(line)) })
  const server = await serveStdio(app, { input, output })
  t.teardown(() => server.close())
  const call = (id: number, name: string, args: object): void => {
    input.write(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: MODERN_META } }) + '\n')
  }
  const answer = async (id: number): Promise<Record<string, any>> => {
    await eventually(() => messages.some((m) => m.id === id))
    return messages.find((m) => m.id === id) as Record<string, any>
  }
  call(1, 'route', { region: 'eu' })
  t.match(await answer(1), { result: { content: [{ text: 'route:eu' }] } }, 'the first call learns the annotations and is answered')
  call(2, 'route', { region: 'us' })
  t.match(await answer(2), { result: { content: [{ text: 'route:us' }] } })
  call(3, 'route', {})
  t.match(await answer(3), { result: { content: [{ text: 'route:-' }] } }, 'no Mcp-Param-Region left over from an earlier call')
  call(4, 'quick', {})
  t.match(await answer(4), { result: { content: [{ text: 'quick:-' }] } })
  t.same(handled.filter((line) => !line.startsWith('fastify-mcp-capabilities/stdio')), ['1 route -', '1 route eu', '2 route us', '3 route -', '4 quick -'],
    'preHandler ran for every call (the first one again after the annotations were read), with the headers of that call')
  t.equal(requests.length, handled.length, 'onRequest ran for every message')
  t.ok(requests.includes('tools/list undefined'), 'the annotation lookup goes through the hooks too')
})

t.test('a legacy connection with a session ends it when it closes, as an HTTP client\'s DELETE would', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) },
    serverInfo: { name: 'stdio-test', version: '1.0.0' },
    sessions: true
  })
  const seen: string[] = []
  app.addHook('onResponse', async (request, reply) => {
    seen.push(`${request.method} ${reply.statusCode} ${String(request.headers['mcp-session-id'] ?? '-')}`)
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages: Array<Record<string, any>> = []
  output.on('data', (chunk: Buffer) => { for (const line of chunk.toString().split('\n')) if (line !== '') messages.push(JSON.parse(line)) })
  const server = await serveStdio(app, { input, output })
  input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }) + '\n')
  await eventually(() => messages.some((m) => m.id === 1))
  input.end()
  await server.closed
  const issued = seen.find((line) => line.startsWith('GET '))?.split(' ')[2]
  t.ok(issued !== undefined && issued !== '-', `the standalone stream carried the session (${String(issued)})`)
  t.ok(seen.includes(`DELETE 204 ${String(issued)}`), `the session was ended with DELETE (${seen.join('; ')})`)
})
