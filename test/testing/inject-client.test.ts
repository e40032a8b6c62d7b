/**
 * The `./testing` entry: injectClient speaks each era over app.inject,
 * mirrors x-mcp-header arguments into Mcp-Param-* headers (the endpoint
 * rejects a modern call without them), hands streamed notifications to
 * onNotification, and throws JSON-RPC errors with code, data and status.
 */
import { Type } from '@sinclair/typebox'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { defineTools } from '../../lib/index.js'
import { injectClient, McpResponseError } from '../../lib/testing/index.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { serve } from '../definitions/helpers.js'

const tools = defineTools({
  route: {
    input: Type.Object({ region: Type.String({ 'x-mcp-header': 'Region' }), note: Type.Optional(Type.String()) }),
    handler: ({ region }) => ({ content: [{ type: 'text', text: `routed to ${region}` }] })
  },
  slow: {
    handler: (_args, ctx) => {
      ctx.progress(1, 2, 'half way')
      ctx.log('debug', 'details')
      ctx.log('info', 'working')
      return { content: [{ type: 'text', text: 'done' }] }
    }
  }
})

t.test('package.json exports ./testing, types first', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
  t.strictSame(pkg.exports['./testing'], { types: './dist/lib/testing/index.d.ts', default: './dist/lib/testing/index.js' })
  t.equal(Object.keys(pkg.exports['./testing'])[0], 'types')
})

t.test('modern: x-mcp-header arguments travel as Mcp-Param-* headers (non-ASCII as base64)', async (t) => {
  const { app } = await serve(t, tools)
  const client = injectClient(app)
  t.match(await client.callTool('route', { region: 'eu-west' }), { content: [{ text: 'routed to eu-west' }] })
  t.match(await client.callTool('route', { region: 'Zürich' }), { content: [{ text: 'routed to Zürich' }] })
  const bare = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'route' },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'route', arguments: { region: 'eu-west' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }
  })
  t.equal(bare.json().error?.code, -32020, 'without the header the endpoint refuses: the client had to send it')
})

for (const era of ['modern', 'legacy'] as const) {
  t.test(`${era}: discover, streamed notifications and errors`, async (t) => {
    const { app } = await serve(t, tools)
    const seen: string[] = []
    const client = injectClient(app, { era, onNotification: (n) => seen.push(n.method) })
    const found = await client.discover() as { capabilities: { tools?: unknown }, protocolVersion?: string, supportedVersions?: string[] }
    t.ok(found.capabilities.tools)
    if (era === 'modern') t.strictSame(found.supportedVersions, ['2026-07-28'])
    else t.equal(found.protocolVersion, '2025-11-25')
    const mine: Array<{ method: string, params?: Record<string, unknown> }> = []
    t.match(await client.callTool('slow', {}, { progressToken: 7, logLevel: 'info', onNotification: (n) => mine.push(n) }), { content: [{ text: 'done' }] })
    t.ok(seen.includes('notifications/progress'), `progress arrived at the client-wide listener (${seen.join(', ')})`)
    t.match(mine, [
      { method: 'notifications/progress', params: { progressToken: 7, progress: 1 } },
      { method: 'notifications/message', params: { level: 'info', data: 'working' } }
    ], 'the per-call listener hears the call\'s progress and its log message at the level asked for')
    t.notOk(mine.some((n) => n.params?.level === 'debug'), 'nothing below the level')
    const quiet: string[] = []
    await client.callTool('slow', {}, { onNotification: (n) => quiet.push(n.method) })
    t.strictSame(quiet, era === 'modern' ? [] : ['notifications/message'],
      'modern: no level, no log messages; legacy: the level set before stays the caller\'s')
    const error = await client.request('nope/nope').catch((err: unknown) => err)
    t.ok(error instanceof McpResponseError)
    t.match(error, { code: -32601, status: era === 'modern' ? 404 : 200 })
  })
}

t.test('an app without the plugin and no path is a clear TypeError', async (t) => {
  const Fastify = (await import('fastify')).default
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(injectClient(app).listTools(), { name: 'TypeError', message: /register fastify-mcp-capabilities first/ })
})
