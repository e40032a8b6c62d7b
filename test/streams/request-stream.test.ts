import Fastify, { type FastifyInstance } from 'fastify'
import { test, type Test } from 'tap'
import mcpCapabilities, { LOG_LEVELS, McpError, type HandlerContext, type LogLevel } from '../../lib/index.js'
import { modernHeaders, modernRequest, parseSse, SERVER_INFO } from './helpers.js'
import { specErrors } from './spec.js'

type Version = '2025-11-25' | '2026-07-28'

function makeServer () {
  const levelsSet: string[] = []
  return {
    levelsSet,
    listTools: () => ({ tools: [] }),
    async callTool (params: Record<string, unknown>, ctx: HandlerContext) {
      switch (params.name) {
        case 'progress':
          ctx.progress(1, 3, 'one')
          ctx.progress(1, 3, 'not an increase')
          ctx.progress(0.5)
          ctx.progress(2, 3)
          ctx.progress(Number.NaN)
          ctx.progress(3, 3, 'done')
          break
        case 'logs':
          for (const level of LOG_LEVELS) ctx.log(level, { at: level }, 'test')
          ctx.log('verbose' as LogLevel, 'unknown level')
          break
        case 'fails-after-progress':
          ctx.progress(1)
          throw new McpError(-32602, 'Invalid params: nope')
      }
      return { content: [{ type: 'text', text: `done ${String(params.name)}` }] }
    },
    setLogLevel (params: Record<string, unknown>) {
      levelsSet.push(params.level as string)
      return {}
    }
  }
}

async function build (t: Test, opts: Record<string, unknown> = {}): Promise<{ app: FastifyInstance, server: ReturnType<typeof makeServer> }> {
  const server = makeServer()
  const app = Fastify()
  await app.register(mcpCapabilities, { server, serverInfo: SERVER_INFO, ...opts })
  t.teardown(() => app.close())
  return { app, server }
}

interface Answer { status: number, type: string, messages: any[] }

async function call (app: FastifyInstance, body: unknown, headers: Record<string, string>, accept = 'application/json, text/event-stream'): Promise<Answer> {
  const res = await app.inject({ method: 'POST', url: '/mcp', payload: body as object, headers: { 'content-type': 'application/json', accept, ...headers } })
  const type = String(res.headers['content-type'])
  const messages = type.startsWith('text/event-stream') ? parseSse(res.payload).map((e) => e.data) : [res.json()]
  return { status: res.statusCode, type, messages }
}

function modernCall (app: FastifyInstance, name: string, meta: Record<string, unknown> = {}, accept?: string): Promise<Answer> {
  return call(app, modernRequest(7, 'tools/call', { name }, meta), modernHeaders('tools/call', name), accept)
}

const LEGACY_HEADERS = { 'mcp-protocol-version': '2025-11-25' }

function legacyCall (app: FastifyInstance, name: string, meta?: Record<string, unknown>, headers = LEGACY_HEADERS): Promise<Answer> {
  const params: Record<string, unknown> = { name }
  if (meta !== undefined) params._meta = meta
  return call(app, { jsonrpc: '2.0', id: 'c1', method: 'tools/call', params }, headers)
}

function setLevel (app: FastifyInstance, level: unknown): Promise<Answer> {
  return call(app, { jsonrpc: '2.0', id: 's1', method: 'logging/setLevel', params: { level } }, LEGACY_HEADERS)
}

function checkAgainstSpec (t: Test, messages: any[], version: Version): void {
  for (const message of messages) t.equal(specErrors(message, version), null, `${message.method ?? 'response'} matches the ${version} schema`)
}

test('a handler that emits nothing is answered with one JSON body', async (t) => {
  const { app } = await build(t)
  const answer = await modernCall(app, 'plain', { progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'debug' })
  t.equal(answer.status, 200)
  t.match(answer.type, /^application\/json/)
  t.equal(answer.messages[0].id, 7)
  t.same(answer.messages[0].result.content, [{ type: 'text', text: 'done plain' }])
})

test('progress without a progressToken sends nothing and stays JSON', async (t) => {
  const { app } = await build(t)
  for (const meta of [{}, { progressToken: null }, { progressToken: 1.5 }, { progressToken: {} }]) {
    const answer = await modernCall(app, 'progress', meta)
    t.match(answer.type, /^application\/json/, JSON.stringify(meta))
    t.equal(answer.messages.length, 1)
  }
})

test('progress with a token turns the response into SSE: increasing notifications, then the response', async (t) => {
  const { app } = await build(t)
  for (const token of ['tok-1', 42]) {
    const answer = await modernCall(app, 'progress', { progressToken: token })
    t.equal(answer.status, 200)
    t.equal(answer.type, 'text/event-stream')
    const [first, second, third, last] = answer.messages
    t.same(first, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 3, message: 'one' } })
    t.same(second, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 3 } })
    t.same(third, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 3, total: 3, message: 'done' } })
    t.equal(last.id, 7)
    t.equal(last.result.resultType, 'complete')
    t.equal(answer.messages.length, 4, 'values that did not increase were dropped')
    checkAgainstSpec(t, answer.messages, '2026-07-28')
  }
})

test('modern log messages: none without a logLevel, then only at or above the requested level', async (t) => {
  const { app } = await build(t)
  const none = await modernCall(app, 'logs')
  t.match(none.type, /^application\/json/, 'no logLevel, no notifications/message')

  for (const threshold of LOG_LEVELS) {
    const answer = await modernCall(app, 'logs', { 'io.modelcontextprotocol/logLevel': threshold })
    t.equal(answer.type, 'text/event-stream')
    const logs = answer.messages.filter((m) => m.method === 'notifications/message')
    const expected = LOG_LEVELS.slice(LOG_LEVELS.indexOf(threshold))
    t.same(logs.map((m) => m.params.level), expected, `threshold ${threshold}`)
    t.same(logs[0].params, { level: expected[0], data: { at: expected[0] }, logger: 'test' })
    t.equal(answer.messages.at(-1).id, 7, 'the response comes last')
    checkAgainstSpec(t, answer.messages, '2026-07-28')
  }
})

test('an unknown modern logLevel is rejected with -32602 before the handler runs', async (t) => {
  const { app } = await build(t)
  const answer = await modernCall(app, 'logs', { 'io.modelcontextprotocol/logLevel': 'banana' })
  t.equal(answer.status, 400)
  t.equal(answer.messages[0].error.code, -32602)
  t.equal(answer.messages[0].id, 7)
})

test('a server that declares logging off sends no log messages even when asked', async (t) => {
  const { app } = await build(t, { server: { ...makeServer(), capabilities: { tools: {}, logging: false } } })
  const answer = await modernCall(app, 'logs', { 'io.modelcontextprotocol/logLevel': 'debug' })
  t.match(answer.type, /^application\/json/)
})

test('an error after progress is the last event of the stream', async (t) => {
  const { app } = await build(t)
  const answer = await modernCall(app, 'fails-after-progress', { progressToken: 'x' })
  t.equal(answer.status, 200, 'the status line was already sent')
  t.equal(answer.messages[0].method, 'notifications/progress')
  t.same(answer.messages[1], { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Invalid params: nope' } })
  checkAgainstSpec(t, answer.messages, '2026-07-28')
})

test('a client that does not accept text/event-stream gets only the final JSON', async (t) => {
  const { app } = await build(t)
  const answer = await modernCall(app, 'progress', { progressToken: 'x' }, 'application/json')
  t.match(answer.type, /^application\/json/)
  t.equal(answer.messages[0].result.content[0].text, 'done progress')
})

test('legacy: progress on the POST response stream, as in 2025-11-25', async (t) => {
  const { app } = await build(t)
  const answer = await legacyCall(app, 'progress', { progressToken: 'lp' })
  t.equal(answer.type, 'text/event-stream')
  t.same(answer.messages.map((m) => m.params?.progress), [1, 2, 3, undefined])
  t.equal(answer.messages[0].params.message, 'one')
  t.same(answer.messages.at(-1), { jsonrpc: '2.0', id: 'c1', result: { content: [{ type: 'text', text: 'done progress' }] } })
  checkAgainstSpec(t, answer.messages, '2025-11-25')

  const old = await legacyCall(app, 'progress', { progressToken: 'lp' }, { 'mcp-protocol-version': '2024-11-05' })
  t.equal(old.messages[0].params.message, undefined, '2024-11-05 progress has no message field')
  const plain = await legacyCall(app, 'progress')
  t.match(plain.type, /^application\/json/, 'no token, no progress')
})

test('legacy: no log messages before logging/setLevel, then the level it set, per endpoint', async (t) => {
  const { app, server } = await build(t)
  const before = await legacyCall(app, 'logs')
  t.match(before.type, /^application\/json/)

  const bad = await setLevel(app, 'banana')
  t.equal(bad.messages[0].error.code, -32602)
  t.same(server.levelsSet, [], 'the handler is not called with an invalid level')
  const stillNone = await legacyCall(app, 'logs')
  t.match(stillNone.type, /^application\/json/)

  const ok = await setLevel(app, 'error')
  t.same(ok.messages[0], { jsonrpc: '2.0', id: 's1', result: {} })
  t.same(server.levelsSet, ['error'], 'the module handler saw the request')
  const errors = await legacyCall(app, 'logs')
  t.same(errors.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level), ['error', 'critical', 'alert', 'emergency'])
  checkAgainstSpec(t, errors.messages, '2025-11-25')

  await setLevel(app, 'debug')
  const all = await legacyCall(app, 'logs')
  t.same(all.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level), [...LOG_LEVELS])
  checkAgainstSpec(t, all.messages, '2025-11-25')
})

test('legacy: a setLogLevel handler error leaves the level unchanged', async (t) => {
  const server = { ...makeServer(), setLogLevel () { throw new McpError(-32603, 'cannot') } }
  const { app } = await build(t, { server })
  const answer = await setLevel(app, 'debug')
  t.equal(answer.messages[0].error.code, -32603)
  const logs = await legacyCall(app, 'logs')
  t.match(logs.type, /^application\/json/)
})
