// Modern (2026-07-28) results: resultType, _meta serverInfo, and the cache
// hints of discover, list and read results (docs/protocol.md), compared
// against exact expected objects.
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { buildCapabilities, TASKS_EXTENSION } from '../../lib/index.js'
import {
  buildApp, callResult, captureLogs, COMPLETE_RESULT, FULL_SERVER_INFO, fullModule, PROMPT, promptResult, RESOURCE,
  readResult, SERVER_INFO, TEMPLATE, toolsResult, toolsModule
} from '../helpers/mcp-fixtures.js'
import { assertResult, META_SERVER_INFO, mcpClient, MODERN } from '../helpers/mcp-inject.js'

const SI = META_SERVER_INFO
const URI = RESOURCE.uri

/** The six results that must carry cache hints, with their params and the handler's own result. */
const CACHEABLE: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['tools/list', {}, toolsResult()],
  ['resources/list', {}, { resources: [{ ...RESOURCE }] }],
  ['resources/templates/list', {}, { resourceTemplates: [{ ...TEMPLATE }] }],
  ['prompts/list', {}, { prompts: [structuredClone(PROMPT)] }],
  ['resources/read', { uri: URI }, readResult(URI)]
]

const NOT_CACHEABLE: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['tools/call', { name: 'echo', arguments: { text: 'hi' } }, callResult('hi')],
  ['prompts/get', { name: 'greet', arguments: { who: 'Ada' } }, promptResult('Ada')],
  ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }, structuredClone(COMPLETE_RESULT)]
]

function discoverResult (hints: { ttlMs: number, cacheScope: string }, extra: Record<string, unknown> = {}, serverInfo: object = SERVER_INFO) {
  return {
    resultType: 'complete',
    supportedVersions: [MODERN],
    capabilities: buildCapabilities(fullModule(), { era: 'modern' }),
    ...extra,
    ...hints,
    _meta: { [SI]: serverInfo }
  }
}

t.test('server/discover answers the exact DiscoverResult, defaults ttlMs 0 and private', async (t) => {
  const mcp = mcpClient(t, await buildApp(t))
  assertResult(t, await mcp.modern('server/discover', {}, { id: 'd1' }), 'd1', discoverResult({ ttlMs: 0, cacheScope: 'private' }))
  assertResult(t, await mcp.modern('server/discover', {}, { id: 0 }), 0, discoverResult({ ttlMs: 0, cacheScope: 'private' }))
})

t.test('server/discover carries instructions, every serverInfo field, and the tasks extension when enabled', async (t) => {
  const app = await buildApp(t, { instructions: 'Use echo to echo.', serverInfo: FULL_SERVER_INFO, tasks: true })
  const reply = await mcpClient(t, app).modern('server/discover', {}, { id: 2 })
  const capabilities = buildCapabilities(fullModule(), { era: 'modern', tasks: true })
  t.strictSame(capabilities.extensions, { [TASKS_EXTENSION]: {} }, 'the extension is in the built capabilities')
  assertResult(t, reply, 2, {
    ...discoverResult({ ttlMs: 0, cacheScope: 'private' }, { instructions: 'Use echo to echo.' }, FULL_SERVER_INFO),
    capabilities
  })
})

t.test('server/discover with configured cache hints', async (t) => {
  const app = await buildApp(t, { cacheHints: { discover: { ttlMs: 3600000, cacheScope: 'public' } } })
  const mcp = mcpClient(t, app)
  assertResult(t, await mcp.modern('server/discover', {}, { id: 1 }), 1, discoverResult({ ttlMs: 3600000, cacheScope: 'public' }))
  // the discover hints are not the list hints
  const list = await mcp.modern('tools/list', {}, { id: 2 })
  t.equal(list.json.result.ttlMs, 0)
  t.equal(list.json.result.cacheScope, 'private')
})

t.test('server/discover with per-request hint functions', async (t) => {
  const seen: FastifyRequest[] = []
  const app = await buildApp(t, {
    cacheHints: {
      discover: {
        ttlMs: (request) => { seen.push(request); return request.headers.authorization === undefined ? 60000 : 1000 },
        cacheScope: (request) => request.headers.authorization === undefined ? 'public' : 'private'
      }
    }
  })
  const mcp = mcpClient(t, app)
  assertResult(t, await mcp.modern('server/discover', {}, { id: 1 }), 1, discoverResult({ ttlMs: 60000, cacheScope: 'public' }))
  assertResult(t, await mcp.modern('server/discover', {}, { id: 2, headers: { authorization: 'Bearer x' } }), 2,
    discoverResult({ ttlMs: 1000, cacheScope: 'private' }))
  assertResult(t, await mcp.modern('server/discover', {}, { id: 3 }), 3, discoverResult({ ttlMs: 60000, cacheScope: 'public' }))
  t.equal(seen.length, 3, 'the function runs once per request')
  t.equal(seen[1]?.headers.authorization, 'Bearer x', 'and receives the Fastify request')
})

t.test('a throwing discover hint function falls back to 0/private and is logged', async (t) => {
  const { logger, records } = captureLogs()
  const app = await buildApp(t, {
    cacheHints: { discover: { ttlMs: () => { throw new Error('ttl exploded') }, cacheScope: 'public' } }
  }, { logger })
  assertResult(t, await mcpClient(t, app).modern('server/discover', {}, { id: 1 }), 1, discoverResult({ ttlMs: 0, cacheScope: 'private' }))
  t.ok(records.some((r) => r.level >= 50 && r.err?.message === 'ttl exploded'), 'the error is logged')
})

t.test('list and read results: resultType, serverInfo and cache hints, default 0/private', async (t) => {
  const app = await buildApp(t)
  for (const [method, params, result] of CACHEABLE) {
    t.test(method, async (t) => {
      assertResult(t, await mcpClient(t, app).modern(method, params, { id: method }), method,
        { ...result, resultType: 'complete', _meta: { [SI]: SERVER_INFO }, ttlMs: 0, cacheScope: 'private' })
    })
  }
})

t.test('list and read results with configured cache hints', async (t) => {
  const app = await buildApp(t, { cacheHints: { results: { ttlMs: 300000, cacheScope: 'public' } }, serverInfo: FULL_SERVER_INFO })
  for (const [method, params, result] of CACHEABLE) {
    t.test(method, async (t) => {
      assertResult(t, await mcpClient(t, app).modern(method, params, { id: 5 }), 5,
        { ...result, resultType: 'complete', _meta: { [SI]: FULL_SERVER_INFO }, ttlMs: 300000, cacheScope: 'public' })
    })
  }
  t.test('the list hints are not the discover hints', async (t) => {
    const reply = await mcpClient(t, app).modern('server/discover', {}, { id: 6 })
    t.equal(reply.json.result.ttlMs, 0)
    t.equal(reply.json.result.cacheScope, 'private')
  })
})

t.test('list and read results with per-request hint functions', async (t) => {
  const app = await buildApp(t, {
    cacheHints: {
      results: {
        ttlMs: (request) => Number(request.headers['x-ttl'] ?? 0),
        cacheScope: (request) => request.headers.authorization === undefined ? 'public' : 'private'
      }
    }
  })
  for (const [method, params, result] of CACHEABLE) {
    t.test(method, async (t) => {
      const mcp = mcpClient(t, app)
      const base = { ...result, resultType: 'complete', _meta: { [SI]: SERVER_INFO } }
      assertResult(t, await mcp.modern(method, params, { id: 1, headers: { 'x-ttl': '42' } }), 1, { ...base, ttlMs: 42, cacheScope: 'public' })
      assertResult(t, await mcp.modern(method, params, { id: 2, headers: { 'x-ttl': '7', authorization: 'Bearer t' } }), 2,
        { ...base, ttlMs: 7, cacheScope: 'private' })
    })
  }
})

t.test('a throwing list hint function falls back to 0/private and is logged', async (t) => {
  const { logger, records } = captureLogs()
  const app = await buildApp(t, {
    cacheHints: { results: { ttlMs: 1000, cacheScope: () => { throw new Error('scope exploded') } } }
  }, { logger })
  for (const [method, params, result] of CACHEABLE) {
    t.test(method, async (t) => {
      assertResult(t, await mcpClient(t, app).modern(method, params, { id: 1 }), 1,
        { ...result, resultType: 'complete', _meta: { [SI]: SERVER_INFO }, ttlMs: 0, cacheScope: 'private' })
    })
  }
  t.test('logged', async (t) => {
    t.ok(records.some((r) => r.level >= 50 && r.err?.message === 'scope exploded'), 'the error is logged')
  })
})

t.test('hint functions returning bad values answer 0/private', async (t) => {
  const app = await buildApp(t, {
    cacheHints: {
      results: { ttlMs: () => -5, cacheScope: () => 'shared' as 'public' },
      discover: { ttlMs: () => 1.5, cacheScope: () => undefined as unknown as 'public' }
    }
  })
  const mcp = mcpClient(t, app)
  const list = await mcp.modern('tools/list', {}, { id: 1 })
  t.equal(list.json.result.ttlMs, 0)
  t.equal(list.json.result.cacheScope, 'private')
  assertResult(t, await mcp.modern('server/discover', {}, { id: 2 }), 2, discoverResult({ ttlMs: 0, cacheScope: 'private' }))
})

t.test('a handler may set its own cache hints on a result', async (t) => {
  const server = fullModule({
    listTools: () => ({ ...toolsResult(), ttlMs: 123, cacheScope: 'public' }),
    listPrompts: () => ({ prompts: [], ttlMs: 0 }),
    readResource: (params: { uri: string }) => ({ ...readResult(params.uri), cacheScope: 'public' })
  })
  const mcp = mcpClient(t, await buildApp(t, { server, cacheHints: { results: { ttlMs: 5000, cacheScope: 'private' } } }))
  assertResult(t, await mcp.modern('tools/list', {}, { id: 1 }), 1,
    { ...toolsResult(), ttlMs: 123, cacheScope: 'public', resultType: 'complete', _meta: { [SI]: SERVER_INFO } })
  assertResult(t, await mcp.modern('prompts/list', {}, { id: 2 }), 2,
    { prompts: [], ttlMs: 0, cacheScope: 'private', resultType: 'complete', _meta: { [SI]: SERVER_INFO } })
  assertResult(t, await mcp.modern('resources/read', { uri: URI }, { id: 3 }), 3,
    { ...readResult(URI), ttlMs: 5000, cacheScope: 'public', resultType: 'complete', _meta: { [SI]: SERVER_INFO } })
})

t.test('invalid handler hints fall back to the configured ones', async (t) => {
  const overrides: Array<[string, unknown, unknown]> = [
    ['negative ttl, unknown scope', -1, 'shared'],
    ['fractional ttl, upper-case scope', 1.5, 'PUBLIC'],
    ['string ttl, null scope', '10', null],
    ['infinite ttl, numeric scope', Infinity, 1],
    ['unsafe integer ttl', 2 ** 60, 'public']
  ]
  for (const [name, ttlMs, cacheScope] of overrides) {
    t.test(name, async (t) => {
      const server = fullModule({ listTools: () => ({ ...toolsResult(), ttlMs, cacheScope }) })
      const mcp = mcpClient(t, await buildApp(t, { server, cacheHints: { results: { ttlMs: 9, cacheScope: 'private' } } }))
      const result = (await mcp.modern('tools/list', {}, { id: 1 })).json.result
      t.equal(result.ttlMs, 9)
      t.equal(result.cacheScope, cacheScope === 'public' ? 'public' : 'private')
    })
  }
})

t.test('other results carry resultType and serverInfo but no cache hints', async (t) => {
  const app = await buildApp(t, { cacheHints: { results: { ttlMs: 1000, cacheScope: 'public' } } })
  for (const [method, params, result] of NOT_CACHEABLE) {
    t.test(method, async (t) => {
      assertResult(t, await mcpClient(t, app).modern(method, params, { id: 'x' }), 'x',
        { ...result, resultType: 'complete', _meta: { [SI]: SERVER_INFO } })
    })
  }
})

t.test('a handler\'s own _meta is kept beside serverInfo', async (t) => {
  const server = fullModule({
    listTools: () => ({ ...toolsResult(), _meta: { 'com.example/trace': 'abc' } }),
    callTool: () => ({ ...callResult('x'), _meta: { 'com.example/cost': 3 } })
  })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  assertResult(t, await mcp.modern('tools/list', {}, { id: 1 }), 1,
    { ...toolsResult(), resultType: 'complete', _meta: { 'com.example/trace': 'abc', [SI]: SERVER_INFO }, ttlMs: 0, cacheScope: 'private' })
  assertResult(t, await mcp.modern('tools/call', { name: 'echo' }, { id: 2 }), 2,
    { ...callResult('x'), resultType: 'complete', _meta: { 'com.example/cost': 3, [SI]: SERVER_INFO } })
})

t.test('an input_required result keeps its resultType', async (t) => {
  const inputRequired = {
    resultType: 'input_required',
    inputRequests: { login: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } },
    requestState: 'state-1'
  }
  const mcp = mcpClient(t, await buildApp(t, { server: fullModule({ callTool: () => structuredClone(inputRequired) }) }))
  const reply = await mcp.modern('tools/call', { name: 'echo' }, { id: 1, capabilities: { elicitation: {} } })
  const { requestState, ...rest } = reply.json.result
  t.strictSame(rest, { resultType: 'input_required', inputRequests: inputRequired.inputRequests, _meta: { [SI]: SERVER_INFO } })
  t.ok(typeof requestState === 'string' && requestState !== 'state-1', 'the endpoint signs the handler\'s requestState')
})

t.test('resources/templates/list without its handler answers an empty list', async (t) => {
  const server = fullModule({ listResourceTemplates: undefined })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  assertResult(t, await mcp.modern('resources/templates/list', {}, { id: 1 }), 1,
    { resourceTemplates: [], resultType: 'complete', _meta: { [SI]: SERVER_INFO }, ttlMs: 0, cacheScope: 'private' })
})

t.test('handlers receive the params and a context describing the request', async (t) => {
  const seen: unknown[] = []
  const server = toolsModule({
    callTool: (params: Record<string, unknown>, ctx: { era: string, protocolVersion: string, method: string, clientInfo: unknown, clientCapabilities: unknown, request: FastifyRequest }) => {
      seen.push({ params, era: ctx.era, protocolVersion: ctx.protocolVersion, method: ctx.method, clientInfo: ctx.clientInfo, clientCapabilities: ctx.clientCapabilities, url: ctx.request.url })
      return callResult('ctx')
    }
  })
  const mcp = mcpClient(t, await buildApp(t, { server }))
  const reply = await mcp.modern('tools/call', { name: 'echo', arguments: { a: 1 } }, { id: 1, capabilities: { sampling: {} } })
  t.equal(reply.status, 200)
  const [call] = seen as Array<Record<string, any>>
  t.strictSame(call?.params.arguments, { a: 1 })
  t.equal(call?.params.name, 'echo')
  t.match(call, { era: 'modern', protocolVersion: MODERN, method: 'tools/call', clientInfo: { name: 'endpoint-tests', version: '0.0.1' }, clientCapabilities: { sampling: {} }, url: '/mcp' })
})
