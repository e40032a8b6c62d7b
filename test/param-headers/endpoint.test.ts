// Mcp-Param-* validation through the endpoint: modern tools/call answers
// 400 -32020 before the tool runs when a header disagrees with the body,
// `validate.paramHeaders` decides when listTools is consulted, and invalid
// annotations are logged.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { ErrorCode, type HandlerContext, type McpCapabilitiesOptions, type AnyServerModule } from '../../lib/index.js'
import { buildApp, captureLogs, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'

const SQL_TOOL = {
  name: 'execute_sql',
  inputSchema: {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      limit: { type: 'integer', 'x-mcp-header': 'Limit' },
      query: { type: 'string' }
    },
    required: ['region', 'query']
  }
}
const PLAIN_TOOL = { name: 'echo', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }

interface Counting { module: AnyServerModule, lists: number, calls: number }

/** A tools module counting its listTools and callTool calls. */
function counting (list: (params: Record<string, unknown>, ctx: HandlerContext) => unknown): Counting {
  const state: Counting = {
    lists: 0,
    calls: 0,
    module: {
      listTools: (params: Record<string, unknown>, ctx: HandlerContext) => { state.lists++; return list(params, ctx) },
      callTool: (params: { name: string }) => { state.calls++; return { content: [{ type: 'text', text: `ran ${params.name}` }] } }
    }
  }
  return state
}

const call = (args: Record<string, unknown>, name = 'execute_sql'): Record<string, unknown> => ({ name, arguments: args })
const ok = { status: 200 }

t.test('a tool with x-mcp-header: matching headers run the tool, others get 400 -32020 before it runs', async (t) => {
  const fixture = counting(() => ({ tools: [SQL_TOOL, PLAIN_TOOL] }))
  const mcp = mcpClient(t, await buildApp(t, { server: fixture.module }))
  const cases: Array<[string, Record<string, unknown>, Record<string, string>, boolean]> = [
    ['matching header', { region: 'us-west1', query: 'q' }, { 'mcp-param-region': 'us-west1' }, true],
    ['header name in any case', { region: 'us-west1', query: 'q' }, { 'MCP-PARAM-REGION': 'us-west1' }, true],
    ['base64 value', { region: 'Hello, 世界', query: 'q' }, { 'mcp-param-region': '=?base64?SGVsbG8sIOS4lueVjA==?=' }, true],
    ['integer compared numerically', { region: 'eu', limit: 42, query: 'q' }, { 'mcp-param-region': 'eu', 'mcp-param-limit': '42.0' }, true],
    ['null value, no header', { region: 'eu', limit: null, query: 'q' }, { 'mcp-param-region': 'eu' }, true],
    ['unrecognised Mcp-Param header ignored', { region: 'eu', query: 'q' }, { 'mcp-param-region': 'eu', 'mcp-param-other': 'x' }, true],
    ['missing header', { region: 'us-west1', query: 'q' }, {}, false],
    ['different value', { region: 'us-west1', query: 'q' }, { 'mcp-param-region': 'us-east1' }, false],
    ['values are case-sensitive', { region: 'us-west1', query: 'q' }, { 'mcp-param-region': 'US-WEST1' }, false],
    ['integer mismatch', { region: 'eu', limit: 42, query: 'q' }, { 'mcp-param-region': 'eu', 'mcp-param-limit': '41' }, false],
    ['header without a body value', { region: 'eu', query: 'q' }, { 'mcp-param-region': 'eu', 'mcp-param-limit': '1' }, false],
    ['bad base64 padding', { region: 'Hello', query: 'q' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' }, false]
  ]
  for (const [name, args, headers, accepted] of cases) {
    const calls = fixture.calls
    const reply = await mcp.modern('tools/call', call(args), { id: 3, headers })
    if (accepted) {
      t.equal(reply.status, ok.status, `${name}: accepted`)
      t.equal(reply.json.result?.content?.[0]?.text, 'ran execute_sql', `${name}: the tool ran`)
    } else {
      assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 3, message: /^Header mismatch: Mcp-Param-/ })
      t.equal(fixture.calls, calls, `${name}: the tool did not run`)
    }
  }
  const plain = await mcp.modern('tools/call', call({ text: 'hi' }, 'echo'), { headers: { 'mcp-param-region': 'anything' } })
  t.equal(plain.status, 200, 'a tool without annotations ignores Mcp-Param headers')
})

t.test('legacy requests are not checked', async (t) => {
  const fixture = counting(() => ({ tools: [SQL_TOOL] }))
  const mcp = mcpClient(t, await buildApp(t, { server: fixture.module }))
  const reply = await mcp.legacy('tools/call', call({ region: 'eu', query: 'q' }), { protocolVersion: '2025-11-25' })
  t.equal(reply.status, 200)
  t.equal(fixture.lists, 0, 'listTools not consulted')
})

t.test("'auto': a list without annotations is consulted once, then only for requests carrying Mcp-Param headers", async (t) => {
  const fixture = counting(() => ({ tools: [PLAIN_TOOL] }))
  const mcp = mcpClient(t, await buildApp(t, { server: fixture.module }))
  for (let i = 0; i < 3; i++) t.equal((await mcp.modern('tools/call', call({ text: 'a' }, 'echo'))).status, 200)
  t.equal(fixture.lists, 1, 'one listTools call for three tools/call')
  await mcp.modern('tools/call', call({ text: 'a' }, 'echo'), { headers: { 'mcp-param-x': '1' } })
  t.equal(fixture.lists, 2, 'a request with an Mcp-Param header is checked')
  await mcp.modern('tools/call', call({ text: 'a' }, 'echo'), { headers: { 'MCP-PARAM-X': '1' } })
  t.equal(fixture.lists, 3, 'whatever the case of its name')
  await mcp.modern('tools/call', call({ text: 'a' }, 'echo'), { headers: { 'mcp-paramx': '1', 'x-mcp-param-y': '1' } })
  t.equal(fixture.lists, 3, 'a name merely like it is not one')
})

t.test("'auto': once an annotation is seen every tools/call is checked, even without headers", async (t) => {
  let annotated = false
  const fixture = counting(() => ({ tools: annotated ? [SQL_TOOL] : [PLAIN_TOOL] }))
  const mcp = mcpClient(t, await buildApp(t, { server: fixture.module }))
  t.equal((await mcp.modern('tools/call', call({ text: 'a' }, 'echo'))).status, 200)
  annotated = true
  // A compliant client sends the header: the endpoint learns the list now has annotations.
  t.equal((await mcp.modern('tools/call', call({ region: 'eu', query: 'q' }), { headers: { 'mcp-param-region': 'eu' } })).status, 200)
  const lists = fixture.lists
  const reply = await mcp.modern('tools/call', call({ region: 'eu', query: 'q' }), { id: 9 })
  assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 9, message: /Mcp-Param-Region header is required/ })
  t.equal(fixture.lists, lists + 1)
})

t.test("'always' consults listTools on every tools/call; 'never' never", async (t) => {
  const always = counting(() => ({ tools: [PLAIN_TOOL] }))
  const a = mcpClient(t, await buildApp(t, { server: always.module, validate: { paramHeaders: 'always' } }))
  for (let i = 0; i < 3; i++) await a.modern('tools/call', call({ text: 'a' }, 'echo'))
  t.equal(always.lists, 3)

  const never = counting(() => ({ tools: [SQL_TOOL] }))
  const n = mcpClient(t, await buildApp(t, { server: never.module, validate: { paramHeaders: 'never' } }))
  const reply = await n.modern('tools/call', call({ region: 'eu', query: 'q' }), { headers: { 'mcp-param-region': 'elsewhere' } })
  t.equal(reply.status, 200, 'a mismatch passes unchecked')
  t.equal(never.lists, 0)
})

t.test('listTools gets the request ctx and _meta; the tool is found on a later page', async (t) => {
  const seen: Array<{ cursor: unknown, method: string, hasMeta: boolean }> = []
  const fixture = counting(async (params, ctx) => {
    seen.push({ cursor: params.cursor, method: ctx.method, hasMeta: typeof params._meta === 'object' })
    return params.cursor === undefined ? { tools: [PLAIN_TOOL], nextCursor: 'p2' } : { tools: [SQL_TOOL] }
  })
  const mcp = mcpClient(t, await buildApp(t, { server: fixture.module }))
  const reply = await mcp.modern('tools/call', call({ region: 'eu', query: 'q' }), { id: 4 })
  assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 4, message: /Mcp-Param-Region/ })
  t.strictSame(seen, [{ cursor: undefined, method: 'tools/call', hasMeta: true }, { cursor: 'p2', method: 'tools/call', hasMeta: true }])
})

t.test('a deeply frozen list result is analysed once', async (t) => {
  const frozen = JSON.parse(JSON.stringify({ tools: [SQL_TOOL] }), (_key, value) => Object.freeze(value))
  let reads = 0
  // Counts reads of `tools`: the analysis reads it, a cached map does not.
  const result = new Proxy(frozen, { get: (target, key) => { if (key === 'tools') reads++; return Reflect.get(target, key) } })
  const fixture = counting(() => result)
  const mcp = mcpClient(t, await buildApp(t, { server: fixture.module }))
  for (let i = 0; i < 3; i++) {
    t.equal((await mcp.modern('tools/call', call({ region: 'eu', query: 'q' }), { headers: { 'mcp-param-region': 'eu' } })).status, 200)
  }
  t.equal(fixture.lists, 3, 'listTools is called each time')
  t.equal(reads, 1, 'its result is analysed once')

  const mutable = { tools: [SQL_TOOL] }
  let mutableReads = 0
  const counted = new Proxy(mutable, { get: (target, key) => { if (key === 'tools') mutableReads++; return Reflect.get(target, key) } })
  const m = mcpClient(t, await buildApp(t, { server: counting(() => counted).module }))
  for (let i = 0; i < 2; i++) await m.modern('tools/call', call({ region: 'eu', query: 'q' }), { headers: { 'mcp-param-region': 'eu' } })
  t.equal(mutableReads, 2, 'a mutable result is analysed afresh')
})

t.test('invalid annotations are logged once and not enforced; valid ones still are', async (t) => {
  const logs = captureLogs('warn')
  const tool = {
    name: 'mixed',
    inputSchema: { type: 'object', properties: { bad: { type: 'number', 'x-mcp-header': 'Bad' }, good: { type: 'string', 'x-mcp-header': 'Good' } } }
  }
  const fixture = counting(() => ({ tools: [tool] }))
  const app = Fastify({ logger: logs.logger })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: fixture.module, serverInfo: SERVER_INFO })
  const mcp = mcpClient(t, app)
  for (let i = 0; i < 2; i++) {
    t.equal((await mcp.modern('tools/call', call({ bad: 1.5, good: 'g' }, 'mixed'), { headers: { 'mcp-param-good': 'g' } })).status, 200)
  }
  const reply = await mcp.modern('tools/call', call({ bad: 1.5, good: 'g' }, 'mixed'), { id: 5 })
  assertError(t, reply, { status: 400, code: ErrorCode.HeaderMismatch, id: 5, message: /Mcp-Param-Good/ })
  const warnings = logs.records.filter((r) => typeof r.problem === 'string')
  t.equal(warnings.length, 1, 'one warning for the repeated definition')
  t.match(warnings[0]?.problem, /tool "mixed": x-mcp-header "Bad" at "bad": type must be/)
})

t.test('listTools failing: the call is answered with an internal error and logged, the tool does not run', async (t) => {
  const logs = captureLogs('error')
  const fixture = counting(() => { throw new Error('database down') })
  const app = Fastify({ logger: logs.logger })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: fixture.module, serverInfo: SERVER_INFO })
  const reply = await mcpClient(t, app).modern('tools/call', call({ region: 'eu', query: 'q' }), { id: 6, headers: { 'mcp-param-region': 'eu' } })
  assertError(t, reply, { status: 200, code: ErrorCode.InternalError, id: 6, message: /^Internal error$/ })
  t.equal(fixture.calls, 0)
  t.ok(logs.records.some((r) => /listTools failed while checking Mcp-Param headers/.test(r.msg ?? '')))
})

t.test('validate.paramHeaders: anything but auto, always or never fails registration', async (t) => {
  for (const value of ['sometimes', true, 1, null]) {
    const app = Fastify()
    t.teardown(() => app.close())
    const options = { server: counting(() => ({ tools: [] })).module, serverInfo: SERVER_INFO, validate: { paramHeaders: value } } as unknown as McpCapabilitiesOptions
    await t.rejects(async () => { await app.register(mcpCapabilities, options).ready() }, { code: 'FST_MCP_INVALID_OPTION', message: /validate\.paramHeaders.*"auto", "always", "never"/ }, String(value))
  }
})
