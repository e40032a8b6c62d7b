// Malformed input of any kind gets the right JSON-RPC error and status, never
// a 500, in both eras (docs/protocol.md "Routing and errors"); handler failures become
// -32603 without leaking internals, and are logged.
import fc from 'fast-check'
import t from 'tap'
import { ErrorCode, type HandlerContext } from '../../lib/index.js'
import { buildApp, callResult, captureLogs, fullModule, toolsModule } from '../helpers/mcp-fixtures.js'
import { assertError, type HeaderPatch, mcpClient, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

const LEGACY_HEADERS = { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' }
const ERAS: Array<[string, Record<string, string>]> = [
  ['modern headers', modernHeaders('tools/list')],
  ['legacy headers', LEGACY_HEADERS],
  ['no version header', { 'content-type': 'application/json' }]
]

function request (extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() }, ...extra }
}

t.test('non-JSON bodies: 400 -32700', async (t) => {
  const app = await buildApp(t)
  for (const [name, headers] of ERAS) {
    t.test(name, async (t) => {
      const mcp = mcpClient(t, app)
      for (const text of ['{', '{"jsonrpc": "2.0", "id": 1, "method": "ping",}', 'undefined', 'NaN', '\u0000', "{'jsonrpc':'2.0'}"]) {
        assertError(t, await mcp.post(text, headers), { status: 400, code: ErrorCode.ParseError, id: undefined })
      }
    })
  }
})

t.test('an empty body: 400, never a 500', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  assertError(t, await mcp.post('', modernHeaders('tools/list')), { status: 400, code: ErrorCode.ParseError, id: undefined })
  assertError(t, await mcp.post('', LEGACY_HEADERS), { status: 400, code: ErrorCode.ParseError, id: undefined })
  // no body and no content type: not a JSON-RPC message at all
  assertError(t, await mcp.post('', {}), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
})

t.test('a body that is JSON but not an object: 400 -32600', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  for (const text of ['null', '1', '"tools/list"', 'true']) {
    assertError(t, await mcp.post(text, modernHeaders('tools/list')), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
  }
})

t.test('wrong content type: 415', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  const body = JSON.stringify(request())
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx', 'text/json', 'application/xml']) {
    const headers = { ...modernHeaders('tools/list'), 'content-type': type }
    assertError(t, await mcp.post(body, headers), { status: 415, code: ErrorCode.InvalidRequest, id: undefined })
  }
  const noType: Record<string, string> = { ...modernHeaders('tools/list') }
  delete noType['content-type']
  assertError(t, await mcp.post(body, noType), { status: 415, code: ErrorCode.InvalidRequest, id: undefined })
  // parameters and case do not matter
  for (const type of ['application/json; charset=utf-8', 'Application/JSON']) {
    t.equal((await mcp.post(body, { ...modernHeaders('tools/list'), 'content-type': type })).status, 200, `${type} accepted`)
  }
})

t.test('oversized body: 413 with a small limits.bodyLimit', async (t) => {
  const app = await buildApp(t, { limits: { bodyLimit: 512 } })
  const mcp = mcpClient(t, app)
  const small = request()
  t.ok(JSON.stringify(small).length < 512)
  t.equal((await mcp.post(small, modernHeaders('tools/list'))).status, 200, 'a body under the limit is served')
  const big = request({ params: { _meta: modernMeta(), padding: 'x'.repeat(600) } })
  assertError(t, await mcp.post(big, modernHeaders('tools/list')), { status: 413, code: ErrorCode.InvalidRequest, id: undefined })
  assertError(t, await mcp.post('x'.repeat(2000), LEGACY_HEADERS), { status: 413, code: ErrorCode.InvalidRequest, id: undefined })
})

t.test('the default body limit is 1 MiB', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  const under = request({ params: { _meta: modernMeta(), padding: 'x'.repeat(1024 * 1024 - 1000) } })
  t.equal((await mcp.post(under, modernHeaders('tools/list'))).status, 200)
  const over = request({ params: { _meta: modernMeta(), padding: 'x'.repeat(1024 * 1024) } })
  assertError(t, await mcp.post(over, modernHeaders('tools/list')), { status: 413, code: ErrorCode.InvalidRequest, id: undefined })
})

t.test('batch arrays: 400 -32600', async (t) => {
  const app = await buildApp(t)
  for (const [name, headers] of ERAS) {
    t.test(name, async (t) => {
      const mcp = mcpClient(t, app)
      assertError(t, await mcp.post([request(), request({ id: 2 })], headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
      assertError(t, await mcp.post([{ jsonrpc: '2.0', method: 'notifications/initialized' }], headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
    })
  }
})

t.test('ids that are not a string or an integer: 400 -32600 without an id', async (t) => {
  const app = await buildApp(t)
  for (const [name, headers] of ERAS) {
    t.test(name, async (t) => {
      const mcp = mcpClient(t, app)
      for (const id of [null, 1.5, -0.5, true, {}, [1], 2 ** 53 + 2]) {
        assertError(t, await mcp.post(request({ id }), headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
      }
    })
  }
})

t.test('unusual but valid ids are echoed exactly', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  for (const id of [0, -1, '', ' ', 'ünïcödé', Number.MAX_SAFE_INTEGER, '1']) {
    const reply = await mcp.modern('tools/list', {}, { id })
    t.equal(reply.status, 200)
    t.equal(reply.json.id, id, `id ${JSON.stringify(id)} echoed`)
  }
})

t.test('non-object params: a string is -32600, an array -32602', async (t) => {
  const app = await buildApp(t)
  for (const [name, headers] of ERAS) {
    t.test(name, async (t) => {
      const mcp = mcpClient(t, app)
      assertError(t, await mcp.post(request({ id: 's', params: 'x' }), headers), { status: 400, code: ErrorCode.InvalidRequest, id: 's' })
      assertError(t, await mcp.post(request({ id: 'a', params: [modernMeta()] }), headers), { status: 400, code: ErrorCode.InvalidParams, id: 'a' })
      for (const params of [1, true, null]) {
        assertError(t, await mcp.post(request({ id: 'o', params }), headers), { status: 400, code: ErrorCode.InvalidRequest, id: 'o' })
      }
    })
  }
})

t.test('__proto__ and constructor.prototype keys are rejected before any handler: 400 -32600', async (t) => {
  let calls = 0
  const server = toolsModule({ callTool: () => { calls++; return callResult('x') } })
  const app = await buildApp(t, { server })
  const poisoned = [
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","__proto__":{"polluted":true},"params":{"name":"echo"}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"polluted":true}}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"__proto__":{"polluted":true}}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"constructor":{"prototype":{"polluted":true}}}}}',
    '{"jsonrpc":"2.0","id":1,"method":"tools/call","constructor":{"prototype":{"polluted":true}},"params":{"name":"echo"}}'
  ]
  for (const [name, headers] of [['modern', modernHeaders('tools/call', { name: 'echo' })], ...ERAS.slice(1)] as Array<[string, Record<string, string>]>) {
    t.test(name, async (t) => {
      const mcp = mcpClient(t, app)
      for (const text of poisoned) {
        assertError(t, await mcp.post(text, headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
      }
    })
  }
  t.test('nothing reached the handler or Object.prototype', async (t) => {
    t.equal(calls, 0)
    t.equal(({} as Record<string, unknown>).polluted, undefined)
  })
})

t.test('a plain "constructor" key (no prototype) is ordinary data', async (t) => {
  let seen: unknown
  const server = toolsModule({ callTool: (params: { arguments?: unknown }) => { seen = params.arguments; return callResult('x') } })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  const reply = await mcp.modern('tools/call', { name: 'echo', arguments: { constructor: 'value', toString: 1 } })
  t.equal(reply.status, 200)
  t.strictSame(seen, { constructor: 'value', toString: 1 })
})

t.test('JSON-RPC responses and notifications POSTed by a client are acknowledged with 202', async (t) => {
  const mcp = mcpClient(t, await buildApp(t))
  for (const message of [
    { jsonrpc: '2.0', id: 5, result: {} },
    { jsonrpc: '2.0', id: 5, error: { code: -1, message: 'x' } },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    { jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: modernMeta() } }
  ]) {
    const reply = await mcp.post(message, modernHeaders('notifications/cancelled'))
    t.equal(reply.status, 202)
    t.equal(reply.body, '')
  }
})

t.test('a prompt handler throwing a plain Error: -32603 with a generic message, the error logged', async (t) => {
  const secret = 'db password is hunter2 at /srv/secret/config.js'
  const { logger, records } = captureLogs()
  const server = fullModule({ getPrompt: () => { throw new TypeError(secret) } })
  const app = await buildApp(t, { server }, { logger })
  for (const [era, send] of [
    ['modern', (mcp: ReturnType<typeof mcpClient>) => mcp.modern('prompts/get', { name: 'p' }, { id: 1 })],
    ['legacy', (mcp: ReturnType<typeof mcpClient>) => mcp.legacy('prompts/get', { name: 'p' }, { id: 1 })]
  ] as const) {
    const before = records.length
    const reply = await send(mcpClient(t, app))
    assertError(t, reply, { status: 200, code: ErrorCode.InternalError, id: 1, message: /^Internal error$/ })
    t.notMatch(reply.body, /hunter2|secret|TypeError|at \//, `${era}: no internals in the response`)
    const logged = records.slice(before).filter((r) => r.level >= 50)
    t.match(logged, [{ method: 'prompts/get', handler: 'getPrompt', msg: 'MCP handler getPrompt (prompt "p") failed' }], `${era}: logged, naming the prompt`)
    t.match(JSON.stringify(logged[0]), /hunter2/, 'the log has the details')
  }
})

t.test('a tool handler throwing under security.toolErrors: "mask": a tool error with a generic text, the error logged', async (t) => {
  const secret = 'db password is hunter2 at /srv/secret/config.js'
  const { logger, records } = captureLogs()
  const server = toolsModule({
    callTool: (params: { name: string }) => {
      if (params.name === 'string') throw secret
      if (params.name === 'async') return Promise.reject(new Error(secret))
      throw new TypeError(secret)
    }
  })
  const app = await buildApp(t, { server, security: { toolErrors: 'mask' } }, { logger })
  const cases: Array<[string, (mcp: ReturnType<typeof mcpClient>) => ReturnType<ReturnType<typeof mcpClient>['modern']>]> = [
    ['modern, sync throw', (mcp) => mcp.modern('tools/call', { name: 'sync' }, { id: 1 })],
    ['modern, rejected promise', (mcp) => mcp.modern('tools/call', { name: 'async' }, { id: 1 })],
    ['modern, thrown string', (mcp) => mcp.modern('tools/call', { name: 'string' }, { id: 1 })],
    ['legacy, sync throw', (mcp) => mcp.legacy('tools/call', { name: 'sync' }, { id: 1, protocolVersion: '2025-06-18' })],
    ['legacy, rejected promise', (mcp) => mcp.legacy('tools/call', { name: 'async' }, { id: 1 })]
  ]
  for (const [name, send] of cases) {
    t.test(name, async (t) => {
      const before = records.length
      const reply = await send(mcpClient(t, app))
      t.equal(reply.status, 200)
      t.match(reply.json, { id: 1, result: { isError: true, content: [{ type: 'text', text: /^Tool ".*" failed with an internal error$/ }] } })
      t.notMatch(reply.body, /hunter2|secret|TypeError|at \//, 'no internals in the response')
      const logged = records.slice(before).filter((r) => r.level >= 50)
      t.equal(logged.length, 1, 'one error logged')
      t.match(JSON.stringify(logged[0]), /hunter2/, 'the log has the details')
      t.match(logged[0], { tool: /^(sync|async|string)$/ })
    })
  }
})

t.test('a handler returning a non-object result: -32603, logged', async (t) => {
  const { logger, records } = captureLogs()
  const results: Record<string, unknown> = { array: [1], string: 'done', number: 3, fn: () => 1 }
  const server = toolsModule({ callTool: (params: { name: string }) => results[params.name] })
  const app = await buildApp(t, { server }, { logger })
  for (const name of Object.keys(results)) {
    t.test(name, async (t) => {
      const before = records.length
      assertError(t, await mcpClient(t, app).modern('tools/call', { name }, { id: name }), { status: 200, code: ErrorCode.InternalError, id: name })
      t.ok(records.slice(before).some((r) => r.level >= 50), 'logged')
    })
  }
})

t.test('random JSON messages never get a 5xx and always a schema-valid answer', async (t) => {
  const app = await buildApp(t, { server: toolsModule({ callTool: (_p: unknown, ctx: HandlerContext) => { ctx.requireClientCapabilities('roots'); return callResult('x') } }) })
  const mcp = mcpClient(t, app)
  const method = fc.constantFrom('tools/list', 'tools/call', 'server/discover', 'initialize', 'ping', 'prompts/list', 'x', 'notifications/initialized')
  const meta = fc.oneof(fc.constant(modernMeta()), fc.constant(modernMeta({ roots: {} })), fc.dictionary(fc.string(), fc.jsonValue()), fc.jsonValue())
  const message = fc.record({
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
    id: fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.double()),
    method: fc.oneof(method, fc.string(), fc.jsonValue()),
    params: fc.oneof(fc.record({ name: fc.oneof(fc.constant('echo'), fc.jsonValue()), _meta: meta }, { requiredKeys: [] }), fc.jsonValue())
  }, { requiredKeys: [] })
  const headers = fc.record({
    'mcp-protocol-version': fc.constantFrom('2026-07-28', '2025-11-25', '2024-11-05', 'x'),
    'mcp-method': method,
    'mcp-name': fc.constantFrom('echo', '=?base64?ZWNobw==?=', '=?base64?!?=')
  }, { requiredKeys: [] })
  let runs = 0
  await fc.assert(fc.asyncProperty(message, headers, async (body, extra) => {
    runs++
    const reply = await mcp.post(body, { 'content-type': 'application/json', ...extra as HeaderPatch as Record<string, string> })
    return reply.status < 500 && (reply.status === 202 || typeof reply.json === 'object')
  }), { numRuns: 150, interruptAfterTimeLimit: 20000 })
  t.ok(runs > 0)
})

t.test('random bodies of any text never get a 5xx', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  await fc.assert(fc.asyncProperty(fc.oneof(fc.string(), fc.json()), async (text) => {
    const reply = await mcp.post(text, modernHeaders('tools/list'))
    return reply.status < 500
  }), { numRuns: 100, interruptAfterTimeLimit: 10000 })
})
