/**
 * validate.results: a handler result that breaks its method's wire schema is
 * logged with each failing path and answered -32603 without details, in
 * both eras; valid results pass untouched; the option is checked.
 */
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { serve } from '../definitions/helpers.js'

const server = {
  listTools: () => ({ tools: [{ name: 'ok', inputSchema: { type: 'object' } }, { name: 'bad', inputSchema: { type: 'object' } }] }),
  callTool: ({ name }: { name: string }) => name === 'ok'
    ? { content: [{ type: 'text', text: 'fine' }], structuredContent: { n: 1 } }
    : { content: [{ type: 'text' }, { type: 'picture', data: 'x' }] },
  listPrompts: () => ({ prompts: [{ name: 'p', arguments: [{ required: true }] }] }),
  getPrompt: () => ({ messages: [] })
}

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: broken results are -32603, details logged; valid ones pass`, async (t) => {
    const { app, logs } = await serve(t, server, { validate: { results: true } })
    const client = injectClient(app, { era })
    t.match(await client.callTool('ok'), { content: [{ type: 'text', text: 'fine' }], structuredContent: { n: 1 } })
    t.strictSame((await client.getPrompt('p')).messages, [])
    await t.rejects(client.callTool('bad'), { code: -32603, message: 'Internal error', data: undefined })
    await t.rejects(client.listPrompts(), { code: -32603, message: 'Internal error' })
    const logged = logs.filter((line) => typeof line.msg === 'string' && line.msg.includes('returned a result that does not match the wire schema of'))
    t.equal(logged.length, 2)
    t.strictSame(logged.map((line) => line.msg), [
      'MCP handler callTool (tool "bad") returned a result that does not match the wire schema of tools/call',
      'MCP handler listPrompts returned a result that does not match the wire schema of prompts/list'
    ], 'each line names the tool it is about')
    t.match(logged[0], { level: 50, method: 'tools/call', handler: 'callTool', era, problems: ['/content/0: Expected union value', '/content/1: Expected union value'] })
    t.match(logged[1], { method: 'prompts/list', problems: ['/prompts/0/arguments/0/name: Expected required property'] })
  })
}

t.test('without the option nothing is checked', async (t) => {
  const { app } = await serve(t, server)
  t.match(await injectClient(app).callTool('bad'), { content: [{ type: 'text' }, { type: 'picture' }] })
})

t.test('validate.results must be a boolean', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' }, validate: { results: 'yes' as unknown as boolean } })
  await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_INVALID_OPTION', message: /validate\.results.*boolean/ })
})
