// Guards issue 11 item 4: handler output the plugin cannot serialise (BigInt,
// a cycle, a throwing getter, a string too long for V8, McpError data with a
// BigInt or a cycle) gave HTTP 500 without an id, and a legacy result whose
// toJSON returned undefined or a primitive went out as invalid JSON or a
// non-object result. Every one must be logged as a server fault and answered
// with a well-formed -32603 carrying the request id (HTTP 200 in both eras).
import t from 'tap'
import { ErrorCode, McpError, runAsTask, type HandlerContext } from '../../lib/index.js'
import { buildApp, captureLogs } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient, MODERN, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import { TASKS_CAPS, tasksClient } from '../tasks/helpers.js'

function cyclic (): Record<string, unknown> {
  const value: Record<string, unknown> = { content: [] }
  value.self = value
  return value
}

/** Each returns (or throws) output JSON cannot carry. */
const BAD_OUTPUT: Record<string, () => unknown> = {
  bigint: () => ({ content: [{ type: 'text', text: 'n' }], n: 10n }),
  cycle: cyclic,
  getter: () => ({ content: [], get boom () { throw new Error('getter exploded') } }),
  // What V8 throws for output longer than its string limit (building ~512 MB in a test is not an option).
  tooLong: () => ({ content: [], toJSON () { throw new RangeError('Invalid string length') } }),
  toJsonUndefined: () => ({ content: [], toJSON: () => undefined }),
  toJsonPrimitive: () => ({ content: [], toJSON: () => 7 }),
  toJsonArray: () => ({ content: [], toJSON: () => [1, 2] }),
  errorDataBigint: () => { throw new McpError(ErrorCode.InvalidParams, 'bad', { n: 1n }) },
  errorDataCycle: () => { throw new McpError(ErrorCode.InvalidParams, 'bad', cyclic()) }
}

function server () {
  return {
    listTools: () => ({ tools: Object.keys(BAD_OUTPUT).map((name) => ({ name, inputSchema: { type: 'object' } })) }),
    callTool: ({ name }: { name: string }) => (BAD_OUTPUT[name] as () => unknown)(),
    listPrompts: () => ({ prompts: [] }),
    getPrompt: async () => ({ messages: [], big: 1n })
  }
}

for (const name of Object.keys(BAD_OUTPUT)) {
  t.test(`${name}: -32603 with the id in both eras, logged`, async (t) => {
    const { logger, records } = captureLogs('error')
    const app = await buildApp(t, { server: server() }, { logger })
    const client = mcpClient(t, app)
    const modern = await client.modern('tools/call', { name, arguments: {} }, { id: 11 })
    assertError(t, modern, { status: 200, code: -32603, id: 11 })
    const legacy = await client.legacy('tools/call', { name, arguments: {} }, { id: 12, protocolVersion: '2025-11-25' })
    assertError(t, legacy, { status: 200, code: -32603, id: 12 })
    // Streamed (a progress token turns the answer into SSE): the last event is the error.
    const streamed = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: modernHeaders('tools/call', { name }),
      payload: JSON.stringify({ jsonrpc: '2.0', id: 13, method: 'tools/call', params: { name, arguments: {}, _meta: { ...modernMeta(), progressToken: 'p', 'io.modelcontextprotocol/logLevel': 'debug' } } })
    })
    t.equal(streamed.statusCode, 200)
    t.same(JSON.parse(streamed.body), { jsonrpc: '2.0', id: 13, error: { code: -32603, message: 'Internal error' } })
    t.ok(records.length >= 3, 'each fault is logged as a server error')
  })
}

t.test('an async prompt result with a BigInt: -32603 with the id', async (t) => {
  const app = await buildApp(t, { server: server() })
  const reply = await mcpClient(t, app).modern('prompts/get', { name: 'p' }, { id: 'p1' })
  assertError(t, reply, { status: 200, code: -32603, id: 'p1' })
})

t.test('a task whose result cannot be serialised fails the task; tasks/get stays well-formed', async (t) => {
  const app = await buildApp(t, {
    tasks: true,
    server: {
      listTools: () => ({ tools: [{ name: 'bad', inputSchema: { type: 'object' } }] }),
      callTool: (_p: unknown, ctx: HandlerContext) => runAsTask(ctx, async () => ({ content: [], n: 5n }))
    }
  })
  const client = tasksClient(t, app)
  const created = await client.call('bad', {}, { capabilities: TASKS_CAPS })
  const taskId = created.json.result.taskId as string
  await new Promise((resolve) => setTimeout(resolve, 20))
  const got = await client.get(taskId)
  t.equal(got.status, 200)
  t.equal(got.json.result.status, 'failed')
  t.equal(got.json.result.error.code, -32603)
  t.type(got.json.result.error.message, 'string')
  t.equal(MODERN, '2026-07-28')
})
