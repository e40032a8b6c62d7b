/**
 * A tools/call handler that throws answers a tool execution error
 * (`isError: true`) in both eras, for raw `callTool` and defined tools:
 * with the error's message by default, a generic text under
 * `security: { toolErrors: 'mask' }` (details logged either way). McpError keeps its
 * code; invalid arguments and unknown tools answer as before; other
 * handlers' throws stay -32603.
 */
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineTools, ErrorCode, McpError } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from '../definitions/helpers.js'

const raw = {
  listTools: () => ({ tools: [{ name: 'raw', inputSchema: { type: 'object' } }] }),
  callTool (params: { name: string, arguments?: { how?: string } }) {
    switch (params.arguments?.how) {
      case 'string': throw 'plain string thrown' // eslint-disable-line no-throw-literal
      case 'empty': throw new Error('')
      case 'huge': throw new Error('x'.repeat(100_000))
      case 'mcp': throw new McpError(ErrorCode.InvalidParams, 'bad how', { field: 'how' })
      case 'async': return Promise.reject(new RangeError('out of range: 42'))
      default: throw new Error('raw failure')
    }
  },
  listPrompts: () => ({ prompts: [{ name: 'p' }] }),
  getPrompt: () => { throw new Error('prompt secret') }
}

const defined = defineTools({
  add: {
    input: Type.Object({ a: Type.Number(), b: Type.Number() }),
    handler: ({ a, b }) => {
      if (b === 0) throw new Error('b must not be zero')
      return String(a + b)
    }
  },
  typed: {
    output: Type.Object({ ok: Type.Boolean() }),
    handler: () => { throw new Error('typed failure') }
  }
})

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: raw callTool throws become isError results with the message`, async (t) => {
    const { app, logs } = await serve(t, raw)
    const client = injectClient(app, { era })
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'raw failure'],
      ['async', 'out of range: 42'],
      ['string', 'plain string thrown'],
      ['empty', 'Tool "raw" failed']
    ]
    for (const [how, text] of cases) {
      const result = await client.callTool('raw', how === undefined ? {} : { how })
      t.strictSame(result.content, [{ type: 'text', text }], `${how ?? 'sync'}: ${text}`)
      t.equal(result.isError, true)
    }
    const huge = await client.callTool('raw', { how: 'huge' })
    const hugeText = (huge.content[0] as { text: string }).text
    t.equal(hugeText.length, 4096, 'a huge message is cut to 4096 characters')
    t.ok(hugeText.endsWith('…'))
    const logged = logs.filter((line) => line.msg === 'MCP tool "raw" threw; answered as a tool execution error (isError)')
    t.equal(logged.length, 5, 'each throw is logged')
    t.match(logged[0], { level: 50, tool: 'raw', err: { message: 'raw failure' } }, 'with the error')
    await t.rejects(client.callTool('raw', { how: 'mcp' }), { code: ErrorCode.InvalidParams, message: 'bad how', data: { field: 'how' } }, 'McpError keeps its code and data')
    await t.rejects(client.getPrompt('p'), { code: ErrorCode.InternalError, message: 'Internal error' }, 'other handlers: -32603 as before')
    t.ok(logs.some((line) => line.msg === 'MCP handler getPrompt (prompt "p") failed'), 'the fault names the prompt')
  })

  t.test(`${era}: defined tools: a throw is isError; invalid arguments and unknown tools unchanged`, async (t) => {
    const { app } = await serve(t, defined)
    const client = injectClient(app, { era })
    const thrown = await client.callTool('add', { a: 1, b: 0 })
    t.strictSame([thrown.content, thrown.isError], [[{ type: 'text', text: 'b must not be zero' }], true])
    t.strictSame((await client.callTool('typed')).content, [{ type: 'text', text: 'typed failure' }], 'with output too')
    t.match(await client.callTool('add', { a: 1 }), { isError: true, content: [{ text: /^Invalid arguments for tool "add": b: required property missing/ }] })
    await t.rejects(client.callTool('nope'), { code: ErrorCode.InvalidParams, message: 'Unknown tool: nope' })
  })

  t.test(`${era}: security.toolErrors 'mask' answers a generic text and logs the details`, async (t) => {
    const { app, logs } = await serve(t, { ...raw, ...defined, listTools: defined.listTools, callTool: defined.callTool }, { security: { toolErrors: 'mask' } })
    const client = injectClient(app, { era })
    const result = await client.callTool('add', { a: 1, b: 0 })
    t.strictSame([result.content, result.isError], [[{ type: 'text', text: 'Tool "add" failed with an internal error' }], true])
    t.notMatch(JSON.stringify(result), /zero/, 'the message stays on the server')
    t.match(logs.find((line) => line.tool === 'add'), { level: 50, err: { message: 'b must not be zero' } }, 'the details are logged')
    t.match(await client.callTool('add', { a: 1 }), { isError: true, content: [{ text: /Invalid arguments/ }] }, 'argument problems are still described')
  })
}

t.test('security.toolErrors is checked at registration', async (t) => {
  for (const bad of ['hide', true, null, 1]) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.register(mcpCapabilities, { server: raw, serverInfo: { name: 'x', version: '1' }, security: { toolErrors: bad as never } })
    await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_INVALID_OPTION', message: /"security\.toolErrors": expected one of "message", "mask"/ }, JSON.stringify(bad))
  }
})
