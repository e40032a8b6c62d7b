// docs/protocol.md "Routing and errors", the modern error table: one test per row, each
// asserting the HTTP status, the JSON-RPC code, the echoed id and the data.
import t from 'tap'
import { ErrorCode, McpError, type HandlerContext } from '../../lib/index.js'
import { buildApp, fullModule, SERVER_INFO, toolsModule } from '../helpers/mcp-fixtures.js'
import {
  assertError, CLIENT_INFO, META_CAPABILITIES, META_CLIENT_INFO, META_VERSION, mcpClient, MODERN, modernHeaders, modernMeta
} from '../helpers/mcp-inject.js'

const LIST = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { _meta: modernMeta() } }

t.test('body that is not JSON: 400 -32700, no id', async (t) => {
  const mcp = mcpClient(t, await buildApp(t))
  for (const text of ['{"jsonrpc":"2.0","id":1,', 'not json', '{\'a\': 1}']) {
    const reply = await mcp.post(text, modernHeaders('tools/list'))
    assertError(t, reply, { status: 400, code: ErrorCode.ParseError, id: undefined })
  }
})

t.test('not a JSON-RPC 2.0 request: 400 -32600', async (t) => {
  const app = await buildApp(t)
  const headers = modernHeaders('tools/list')

  t.test('a batch array (no id to echo)', async (t) => {
    const mcp = mcpClient(t, app)
    assertError(t, await mcp.post([LIST], headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
    assertError(t, await mcp.post([], headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
  })
  t.test('id: null', async (t) => {
    const mcp = mcpClient(t, app)
    assertError(t, await mcp.post({ ...LIST, id: null }, headers), { status: 400, code: ErrorCode.InvalidRequest, id: undefined })
  })
  t.test('no method (id echoed)', async (t) => {
    const mcp = mcpClient(t, app)
    const { method, ...noMethod } = LIST
    assertError(t, await mcp.post(noMethod, headers), { status: 400, code: ErrorCode.InvalidRequest, id: 7 })
  })
  t.test('method that is not a non-empty string (id echoed)', async (t) => {
    const mcp = mcpClient(t, app)
    assertError(t, await mcp.post({ ...LIST, method: 42 }, headers), { status: 400, code: ErrorCode.InvalidRequest, id: 7 })
    assertError(t, await mcp.post({ ...LIST, method: '' }, headers), { status: 400, code: ErrorCode.InvalidRequest, id: 7 })
  })
  t.test('wrong or missing jsonrpc (id echoed)', async (t) => {
    const mcp = mcpClient(t, app)
    assertError(t, await mcp.post({ ...LIST, jsonrpc: '1.0' }, headers), { status: 400, code: ErrorCode.InvalidRequest, id: 7 })
    assertError(t, await mcp.post({ ...LIST, jsonrpc: 2 }, headers), { status: 400, code: ErrorCode.InvalidRequest, id: 7 })
    const { jsonrpc, ...noVersion } = LIST
    assertError(t, await mcp.post({ ...noVersion, id: 'seven' }, headers), { status: 400, code: ErrorCode.InvalidRequest, id: 'seven' })
  })
})

t.test('_meta lacking protocolVersion or clientCapabilities: 400 -32602', async (t) => {
  const app = await buildApp(t)
  const cases: Array<[string, Record<string, unknown>]> = [
    ['no protocolVersion', { [META_CAPABILITIES]: {}, [META_CLIENT_INFO]: CLIENT_INFO }],
    ['no clientCapabilities', { [META_VERSION]: MODERN, [META_CLIENT_INFO]: CLIENT_INFO }],
    ['clientCapabilities is not an object', { [META_VERSION]: MODERN, [META_CAPABILITIES]: 'all' }],
    ['clientCapabilities is null', { [META_VERSION]: MODERN, [META_CAPABILITIES]: null }],
    ['clientCapabilities is an array', { [META_VERSION]: MODERN, [META_CAPABILITIES]: [] }],
    ['protocolVersion is not a string', { [META_VERSION]: 20260728, [META_CAPABILITIES]: {} }],
    ['empty _meta', {}]
  ]
  for (const [name, meta] of cases) {
    t.test(name, async (t) => {
      const mcp = mcpClient(t, app)
      const reply = await mcp.modern('tools/list', {}, { id: `id-${name}`, meta })
      assertError(t, reply, { status: 400, code: ErrorCode.InvalidParams, id: `id-${name}` })
    })
  }
  t.test('no _meta at all, with the modern version header', async (t) => {
    const mcp = mcpClient(t, app)
    const reply = await mcp.post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }, modernHeaders('tools/list'))
    assertError(t, reply, { status: 400, code: ErrorCode.InvalidParams, id: 3 })
  })
  t.test('_meta that is not an object, with the modern version header', async (t) => {
    const mcp = mcpClient(t, app)
    const reply = await mcp.post({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: 'x' } }, modernHeaders('tools/list'))
    assertError(t, reply, { status: 400, code: ErrorCode.InvalidParams, id: 4 })
  })
})

t.test('MCP-Protocol-Version header missing or different from _meta: 400 -32020', async (t) => {
  const mcp = mcpClient(t, await buildApp(t))
  assertError(t, await mcp.modern('tools/list', {}, { id: 1, headers: { 'mcp-protocol-version': undefined } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 1 })
  assertError(t, await mcp.modern('tools/list', {}, { id: 2, headers: { 'mcp-protocol-version': '2025-11-25' } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 2 })
  assertError(t, await mcp.modern('server/discover', {}, { id: 3, headers: { 'mcp-protocol-version': '2026-07-28 ' } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 3 })
})

t.test('Mcp-Method header missing or different from method: 400 -32020', async (t) => {
  const mcp = mcpClient(t, await buildApp(t))
  assertError(t, await mcp.modern('tools/list', {}, { id: 1, headers: { 'mcp-method': undefined } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 1 })
  assertError(t, await mcp.modern('tools/list', {}, { id: 2, headers: { 'mcp-method': 'prompts/list' } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 2 })
  // header values are case-sensitive
  assertError(t, await mcp.modern('tools/list', {}, { id: 3, headers: { 'mcp-method': 'Tools/List' } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 3 })
  assertError(t, await mcp.modern('server/discover', {}, { id: 4, headers: { 'mcp-method': undefined } }),
    { status: 400, code: ErrorCode.HeaderMismatch, id: 4 })
})

const NAMED: Array<[string, Record<string, unknown>]> = [
  ['tools/call', { name: 'echo', arguments: { text: 'hi' } }],
  ['resources/read', { uri: 'file:///notes/a.txt' }],
  ['prompts/get', { name: 'greet', arguments: { who: 'Ada' } }]
]

t.test('Mcp-Name header missing or different on tools/call, resources/read, prompts/get: 400 -32020', async (t) => {
  const app = await buildApp(t)
  for (const [method, params] of NAMED) {
    t.test(method, async (t) => {
      const mcp = mcpClient(t, app)
      const ok = await mcp.modern(method, params, { id: 'ok' })
      t.equal(ok.status, 200, 'served with the matching header')
      assertError(t, await mcp.modern(method, params, { id: 'missing', headers: { 'mcp-name': undefined } }),
        { status: 400, code: ErrorCode.HeaderMismatch, id: 'missing' })
      assertError(t, await mcp.modern(method, params, { id: 'other', headers: { 'mcp-name': 'something-else' } }),
        { status: 400, code: ErrorCode.HeaderMismatch, id: 'other' })
      const value = String(params.name ?? params.uri)
      assertError(t, await mcp.modern(method, params, { id: 'case', headers: { 'mcp-name': value.toUpperCase() } }),
        { status: 400, code: ErrorCode.HeaderMismatch, id: 'case' })
    })
  }
})

function b64 (value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`
}

t.test('Mcp-Name in =?base64?...?= form is decoded before comparing', async (t) => {
  const unicodeName = 'grüße 世界'
  const server = fullModule({
    callTool: (params: { name: string }) => ({ content: [{ type: 'text', text: `called ${params.name}` }] }),
    readResource: (params: { uri: string }) => ({ contents: [{ uri: params.uri, text: 'x' }] }),
    getPrompt: (params: { name: string }) => ({ messages: [{ role: 'user', content: { type: 'text', text: params.name } }] })
  })
  const app = await buildApp(t, { server })
  const values: Record<string, [string, Record<string, unknown>]> = {
    'tools/call': [unicodeName, { name: unicodeName }],
    'resources/read': ['file:///notes/r%C3%A9sum%C3%A9.txt', { uri: 'file:///notes/r%C3%A9sum%C3%A9.txt' }],
    'prompts/get': [' padded ', { name: ' padded ' }]
  }
  for (const [method, [value, params]] of Object.entries(values)) {
    t.test(`${method}: valid encoding of the same value is served`, async (t) => {
      const mcp = mcpClient(t, app)
      const reply = await mcp.modern(method, params, { id: 1, headers: { 'mcp-name': b64(value) } })
      t.equal(reply.status, 200)
      t.ok(reply.json?.result, 'a result')
    })
    t.test(`${method}: valid encoding of another value is a mismatch`, async (t) => {
      const mcp = mcpClient(t, app)
      const reply = await mcp.modern(method, params, { id: 2, headers: { 'mcp-name': b64(value + 'x') } })
      assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 2 })
    })
    t.test(`${method}: malformed encodings are a mismatch`, async (t) => {
      const mcp = mcpClient(t, app)
      for (const bad of ['=?base64?***?=', '=?base64?QUJD?', '=?base64?QUJDR?=', b64(value).replace('?=', '')]) {
        const reply = await mcp.modern(method, params, { id: 3, headers: { 'mcp-name': bad } })
        assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 3 })
      }
    })
  }
  t.test('a plain ASCII name may also be sent encoded', async (t) => {
    const mcp = mcpClient(t, app)
    const reply = await mcp.modern('tools/call', { name: 'echo' }, { id: 4, headers: { 'mcp-name': b64('echo') } })
    t.equal(reply.status, 200)
  })
  t.test('the sentinel markers are case-sensitive: an upper-case prefix is a plain value', async (t) => {
    const mcp = mcpClient(t, app)
    const reply = await mcp.modern('tools/call', { name: 'echo' }, { id: 5, headers: { 'mcp-name': '=?BASE64?ZWNobw==?=' } })
    assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 5 })
  })
  t.test('bytes that are not UTF-8 are malformed', async (t) => {
    const mcp = mcpClient(t, app)
    const reply = await mcp.modern('tools/call', { name: 'echo' }, { id: 6, headers: { 'mcp-name': `=?base64?${Buffer.from([0xff, 0xfe]).toString('base64')}?=` } })
    assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 6 })
  })
})

t.test('unsupported protocol version: 400 -32022 with data.supported and data.requested', async (t) => {
  const app = await buildApp(t)
  const discover = await mcpClient(t, app).modern('server/discover', {}, { id: 'd' })
  const supportedVersions: string[] = discover.json.result.supportedVersions
  for (const requested of ['1900-01-01', '2025-11-25', '2024-11-05', '2026-07-29', 'draft']) {
    t.test(requested, async (t) => {
      const mcp = mcpClient(t, app)
      const meta = { ...modernMeta(), [META_VERSION]: requested }
      const reply = await mcp.modern('tools/list', {}, { id: requested, meta, headers: { 'mcp-protocol-version': requested } })
      assertError(t, reply, { status: 400, code: ErrorCode.UnsupportedProtocolVersion, id: requested, data: { supported: [MODERN], requested } })
      const supported: string[] = reply.json.error.data.supported
      t.ok(supported.every((v) => supportedVersions.includes(v)), 'data.supported is a subset of discover\'s supportedVersions')
    })
  }
  t.test('also for server/discover itself', async (t) => {
    const mcp = mcpClient(t, app)
    const meta = { ...modernMeta(), [META_VERSION]: '2099-01-01' }
    const reply = await mcp.modern('server/discover', {}, { id: 9, meta, headers: { 'mcp-protocol-version': '2099-01-01' } })
    assertError(t, reply, { status: 400, code: ErrorCode.UnsupportedProtocolVersion, id: 9, data: { supported: [MODERN], requested: '2099-01-01' } })
  })
})

t.test('handler needing an undeclared client capability: 400 -32021 with data.requiredCapabilities', async (t) => {
  const server = toolsModule({
    callTool: (params: { name: string }, ctx: HandlerContext) => {
      if (params.name === 'sample') ctx.requireClientCapabilities('sampling')
      if (params.name === 'both') ctx.requireClientCapabilities('sampling', 'elicitation')
      return { content: [{ type: 'text', text: 'done' }] }
    }
  })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  assertError(t, await mcp.modern('tools/call', { name: 'sample' }, { id: 1 }),
    { status: 400, code: ErrorCode.MissingRequiredClientCapability, id: 1, data: { requiredCapabilities: { sampling: {} } } })
  assertError(t, await mcp.modern('tools/call', { name: 'both' }, { id: 2, capabilities: { elicitation: {} } }),
    { status: 400, code: ErrorCode.MissingRequiredClientCapability, id: 2, data: { requiredCapabilities: { sampling: {} } } })
  assertError(t, await mcp.modern('tools/call', { name: 'both' }, { id: 3 }),
    { status: 400, code: ErrorCode.MissingRequiredClientCapability, id: 3, data: { requiredCapabilities: { sampling: {}, elicitation: {} } } })
  const declared = await mcp.modern('tools/call', { name: 'both' }, { id: 4, capabilities: { sampling: {}, elicitation: { form: {} } } })
  t.equal(declared.status, 200, 'served once the capabilities are declared')
  t.strictSame(declared.json.result.content, [{ type: 'text', text: 'done' }])
})

t.test('unknown method: 404 -32601', async (t) => {
  const mcp = mcpClient(t, await buildApp(t))
  for (const method of ['tools/frobnicate', 'foo', 'subscriptions/unknown', 'tools/list/', 'TOOLS/LIST']) {
    assertError(t, await mcp.modern(method, {}, { id: method }), { status: 404, code: ErrorCode.MethodNotFound, id: method })
  }
})

t.test('methods removed in 2026-07-28: 404 -32601 even when the module has their handlers', async (t) => {
  const app = await buildApp(t, { server: fullModule() })
  const removed: Array<[string, Record<string, unknown>]> = [
    ['initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: CLIENT_INFO }],
    ['ping', {}],
    ['logging/setLevel', { level: 'debug' }],
    ['resources/subscribe', { uri: 'file:///notes/a.txt' }],
    ['resources/unsubscribe', { uri: 'file:///notes/a.txt' }]
  ]
  for (const [method, params] of removed) {
    t.test(method, async (t) => {
      const mcp = mcpClient(t, app)
      assertError(t, await mcp.modern(method, params, { id: `r-${method}` }), { status: 404, code: ErrorCode.MethodNotFound, id: `r-${method}` })
    })
  }
})

t.test('method whose handler is absent: 404 -32601', async (t) => {
  const mcp = mcpClient(t, await buildApp(t, { server: toolsModule() }))
  const absent: Array<[string, Record<string, unknown>]> = [
    ['prompts/list', {}],
    ['prompts/get', { name: 'greet' }],
    ['resources/list', {}],
    ['resources/read', { uri: 'file:///x' }],
    ['resources/templates/list', {}],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } }]
  ]
  for (const [method, params] of absent) {
    assertError(t, await mcp.modern(method, params, { id: method }), { status: 404, code: ErrorCode.MethodNotFound, id: method })
  }
})

t.test('a capability switched off by the module is not routed: 404 -32601', async (t) => {
  const server = fullModule({ capabilities: { tools: {}, resources: {}, prompts: false, completions: false } })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  assertError(t, await mcp.modern('prompts/list', {}, { id: 1 }), { status: 404, code: ErrorCode.MethodNotFound, id: 1 })
  assertError(t, await mcp.modern('completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } }, { id: 2 }),
    { status: 404, code: ErrorCode.MethodNotFound, id: 2 })
  t.equal((await mcp.modern('tools/list', {}, { id: 3 })).status, 200, 'tools still served')
})

t.test('a handler throwing McpError answers its code, message and data', async (t) => {
  const server = toolsModule({
    callTool: (params: { name: string }) => {
      if (params.name === 'data') throw new McpError(-32050, 'Quota exceeded', { retryAfterMs: 1000 })
      if (params.name === 'params') throw new McpError(ErrorCode.InvalidParams, 'Unknown tool: params')
      throw new McpError(-32099, 'Custom failure', [1, 'two', { three: 3 }])
    }
  })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  const withData = await mcp.modern('tools/call', { name: 'data' }, { id: 1 })
  assertError(t, withData, { status: 200, code: -32050, id: 1, data: { retryAfterMs: 1000 }, message: /^Quota exceeded$/ })
  const invalid = await mcp.modern('tools/call', { name: 'params' }, { id: 2 })
  assertError(t, invalid, { status: 400, code: ErrorCode.InvalidParams, id: 2, message: /^Unknown tool: params$/ })
  const custom = await mcp.modern('tools/call', { name: 'other' }, { id: 3 })
  assertError(t, custom, { status: 200, code: -32099, id: 3, data: [1, 'two', { three: 3 }], message: /^Custom failure$/ })
})

t.test('checks run before any handler: a rejected request never reaches the module', async (t) => {
  let calls = 0
  const server = toolsModule({ callTool: () => { calls++; return { content: [] } } })
  const mcp = mcpClient(t, await buildApp(t, { server, serverInfo: SERVER_INFO }))
  await mcp.modern('tools/call', { name: 'echo' }, { headers: { 'mcp-name': 'other' } })
  await mcp.modern('tools/call', { name: 'echo' }, { headers: { 'mcp-method': 'tools/list' } })
  await mcp.modern('tools/call', { name: 'echo' }, { meta: { [META_VERSION]: MODERN } })
  await mcp.modern('tools/call', { name: 'echo' }, { meta: { ...modernMeta(), [META_VERSION]: '1900-01-01' }, headers: { 'mcp-protocol-version': '1900-01-01' } })
  t.equal(calls, 0)
})
