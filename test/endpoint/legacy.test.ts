// docs/protocol.md "Eras": the legacy endpoint (2024-11-05..2025-11-25) over
// stateless Streamable HTTP.
import t from 'tap'
import { buildCapabilities, ErrorCode, McpError, type HandlerContext } from '../../lib/index.js'
import {
  buildApp, callResult, COMPLETE_RESULT, FULL_SERVER_INFO, fullModule, PROMPT, promptResult, RESOURCE, readResult, SERVER_INFO,
  TEMPLATE, toolsModule, toolsResult
} from '../helpers/mcp-fixtures.js'
import { assertError, assertResult, CLIENT_INFO, mcpClient } from '../helpers/mcp-inject.js'

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const
const LEGACY_CAPS = buildCapabilities(fullModule(), { era: 'legacy' })

t.test('initialize echoes each supported legacy version', async (t) => {
  const app = await buildApp(t, { instructions: 'Try echo.' })
  for (const version of LEGACY_VERSIONS) {
    t.test(version, async (t) => {
      assertResult(t, await mcpClient(t, app).initialize(version, { id: `i-${version}` }), `i-${version}`, {
        protocolVersion: version,
        capabilities: LEGACY_CAPS,
        serverInfo: SERVER_INFO,
        instructions: 'Try echo.'
      })
    })
  }
})

t.test('initialize answers the newest legacy version for an unknown one', async (t) => {
  const app = await buildApp(t)
  for (const requested of ['2099-01-01', '2024-10-07', '2026-07-28', 'latest', '']) {
    t.test(JSON.stringify(requested), async (t) => {
      assertResult(t, await mcpClient(t, app).initialize(requested, { id: 1 }), 1,
        { protocolVersion: '2025-11-25', capabilities: LEGACY_CAPS, serverInfo: SERVER_INFO })
    })
  }
})

t.test('initialize gives each version only the serverInfo fields it defines', async (t) => {
  const app = await buildApp(t, { serverInfo: FULL_SERVER_INFO })
  const { name, version, title, description, icons, websiteUrl } = FULL_SERVER_INFO
  const expected: Record<string, object> = {
    '2024-11-05': { name, version },
    '2025-03-26': { name, version },
    '2025-06-18': { name, version, title },
    '2025-11-25': { name, version, title, description, icons, websiteUrl }
  }
  for (const v of LEGACY_VERSIONS) {
    t.test(v, async (t) => {
      const reply = await mcpClient(t, app).initialize(v)
      t.strictSame(reply.json.result.serverInfo, expected[v])
    })
  }
})

t.test('initialize without the params it needs: 400 -32602', async (t) => {
  const app = await buildApp(t)
  const bad: Array<[string, Record<string, unknown> | undefined]> = [
    ['no params', undefined],
    ['no protocolVersion', { capabilities: {}, clientInfo: CLIENT_INFO }],
    ['numeric protocolVersion', { protocolVersion: 20251125, capabilities: {}, clientInfo: CLIENT_INFO }],
    ['no capabilities', { protocolVersion: '2025-11-25', clientInfo: CLIENT_INFO }],
    ['no clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }]
  ]
  for (const [name, params] of bad) {
    t.test(name, async (t) => {
      assertError(t, await mcpClient(t, app).legacy('initialize', params, { id: name }), { status: 400, code: ErrorCode.InvalidParams, id: name })
    })
  }
})

t.test('notifications/initialized and any other notification: 202, no body', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  const notifications = ['notifications/initialized', 'notifications/cancelled', 'notifications/roots/list_changed', 'notifications/whatever']
  for (const method of notifications) {
    for (const header of [undefined, '2025-06-18', '2025-11-25']) {
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (header !== undefined) headers['mcp-protocol-version'] = header
      const reply = await mcp.post({ jsonrpc: '2.0', method, params: { requestId: 1 } }, headers)
      t.equal(reply.status, 202, `${method} (${header ?? 'no header'}): 202`)
      t.equal(reply.body, '', 'no body')
    }
  }
  const noParams = await mcp.post({ jsonrpc: '2.0', method: 'notifications/initialized' })
  t.equal(noParams.status, 202)
  t.equal(noParams.body, '')
})

t.test('ping answers an empty result', async (t) => {
  const app = await buildApp(t)
  for (const header of [undefined, ...LEGACY_VERSIONS]) {
    t.test(header ?? 'no header', async (t) => {
      assertResult(t, await mcpClient(t, app).legacy('ping', undefined, { id: 'p', protocolVersion: header }), 'p', {})
      assertResult(t, await mcpClient(t, app).legacy('ping', {}, { id: 12, protocolVersion: header }), 12, {})
    })
  }
})

t.test('an unknown MCP-Protocol-Version header after initialize: 400', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  t.equal((await mcp.initialize('2025-06-18')).status, 200)
  for (const header of ['2099-01-01', '2025-06-17', 'garbage', '']) {
    for (const [method, params] of [['ping', undefined], ['tools/list', {}], ['tools/call', { name: 'echo' }]] as const) {
      assertError(t, await mcp.legacy(method, params, { id: `${method}-${header}`, protocolVersion: header }),
        { status: 400, code: ErrorCode.InvalidRequest, id: `${method}-${header}` })
    }
  }
})

t.test('DELETE (sessions off), PUT, PATCH and HEAD: 405 with Allow: GET, POST', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  for (const method of ['DELETE', 'PUT', 'PATCH'] as const) {
    const variants: Array<Record<string, string>> = [{}, { accept: 'text/event-stream', 'mcp-protocol-version': '2025-06-18' }, { 'mcp-session-id': 'abc', 'mcp-protocol-version': '2025-11-25' }]
    for (const headers of variants) {
      const reply = await mcp.send(method, headers)
      assertError(t, reply, { status: 405, code: ErrorCode.InvalidRequest, id: undefined })
      t.equal(reply.headers.allow, 'GET, POST', `${method}: Allow names GET and POST`)
      t.notOk(reply.headers['mcp-session-id'], 'no session id is minted or echoed')
    }
  }
  const head = await app.inject({ method: 'HEAD', url: '/mcp' })
  t.equal(head.statusCode, 405, 'HEAD: 405')
  t.equal(head.headers.allow, 'GET, POST', 'HEAD: Allow names GET and POST')
})

t.test('routed methods answer the handler\'s result as is', async (t) => {
  const app = await buildApp(t)
  const routed: Array<[string, Record<string, unknown>, unknown]> = [
    ['tools/list', {}, toolsResult()],
    ['tools/call', { name: 'echo', arguments: { text: 'hi' } }, callResult('hi')],
    ['resources/list', {}, { resources: [{ ...RESOURCE }] }],
    ['resources/read', { uri: RESOURCE.uri }, readResult(RESOURCE.uri)],
    ['resources/templates/list', {}, { resourceTemplates: [{ ...TEMPLATE }] }],
    ['resources/subscribe', { uri: RESOURCE.uri }, {}],
    ['resources/unsubscribe', { uri: RESOURCE.uri }, {}],
    ['prompts/list', {}, { prompts: [structuredClone(PROMPT)] }],
    ['prompts/get', { name: 'greet', arguments: { who: 'Ada' } }, promptResult('Ada')],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } }, structuredClone(COMPLETE_RESULT)],
    ['logging/setLevel', { level: 'debug' }, {}]
  ]
  for (const version of ['2025-11-25', '2025-06-18', undefined]) {
    for (const [method, params, result] of routed) {
      t.test(`${method} (${version ?? 'no header'})`, async (t) => {
        assertResult(t, await mcpClient(t, app).legacy(method, params, { id: method, protocolVersion: version }), method, result)
      })
    }
  }
})

t.test('methods without a handler or capability: -32601', async (t) => {
  const app = await buildApp(t, { server: toolsModule() })
  const methods: Array<[string, Record<string, unknown>]> = [
    ['prompts/list', {}], ['resources/read', { uri: 'file:///x' }], ['resources/subscribe', { uri: 'file:///x' }],
    ['completion/complete', {}], ['server/discover', {}], ['tools/unknown', {}]
  ]
  for (const [method, params] of methods) {
    t.test(method, async (t) => {
      assertError(t, await mcpClient(t, app).legacy(method, params, { id: 9, protocolVersion: '2025-11-25' }),
        { status: 200, code: ErrorCode.MethodNotFound, id: 9 })
    })
  }
})

t.test('handlers see the legacy era and the header version (2025-03-26 without one)', async (t) => {
  const seen: Array<[string, string, unknown]> = []
  const server = toolsModule({
    callTool: (_params: unknown, ctx: HandlerContext) => { seen.push([ctx.era, ctx.protocolVersion, ctx.clientInfo]); return callResult('x') }
  })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  await mcp.legacy('tools/call', { name: 'echo' }, { protocolVersion: '2025-06-18' })
  await mcp.legacy('tools/call', { name: 'echo' })
  t.strictSame(seen, [['legacy', '2025-06-18', null], ['legacy', '2025-03-26', null]])
})

t.test('legacy handler errors: McpError as thrown, a capability check as -32600', async (t) => {
  const server = toolsModule({
    callTool: (params: { name: string }, ctx: HandlerContext) => {
      if (params.name === 'sample') ctx.requireClientCapabilities('sampling')
      throw new McpError(-32002, 'Not found', { name: params.name })
    }
  })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  assertError(t, await mcp.legacy('tools/call', { name: 'x' }, { id: 1, protocolVersion: '2025-11-25' }),
    { status: 200, code: -32002, id: 1, data: { name: 'x' }, message: /^Not found$/ })
  // a stateless legacy request cannot declare client capabilities
  assertError(t, await mcp.legacy('tools/call', { name: 'sample' }, { id: 2, protocolVersion: '2025-11-25' }),
    { status: 200, code: ErrorCode.InvalidRequest, id: 2 })
})

t.test('legacy capabilities follow the legacy rules', async (t) => {
  const app = await buildApp(t)
  const result = (await mcpClient(t, app).initialize('2025-11-25')).json.result
  t.strictSame(result.capabilities, {
    tools: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {}
  })
})
