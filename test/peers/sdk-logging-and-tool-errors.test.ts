/**
 * The official SDK client (@modelcontextprotocol/client 2.4.0) in both eras
 * against a module written with the define helpers alone (no setLogLevel):
 * it sees the logs it asked for (legacy `setLoggingLevel`, modern per-request
 * `_meta` logLevel, as the README shows) and a thrown tool error as an
 * `isError` result carrying the message, or a generic text with
 * `security: { toolErrors: 'mask' }`; an McpError thrown on purpose keeps its code.
 */
import { Client, LOG_LEVEL_META_KEY, ProtocolError, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineTools, ErrorCode, McpError } from '../../lib/index.js'

const server = defineTools({
  chatty: {
    handler: (_args, ctx) => {
      ctx.log('debug', 'details')
      ctx.log('info', 'working')
      ctx.log('error', 'trouble')
      return 'done'
    }
  },
  boom: {
    handler: () => { throw new Error('disk full: /var/data') }
  },
  asyncBoom: {
    handler: async () => { throw new TypeError('no such column "nme"') }
  },
  proto: {
    handler: () => { throw new McpError(ErrorCode.InvalidRequest, 'not now') }
  }
})

const ERAS: Record<'legacy' | 'modern', ClientOptions> = {
  legacy: { versionNegotiation: { mode: 'legacy' } },
  modern: { versionNegotiation: { mode: { pin: '2026-07-28' } } }
}

async function start (t: Test, extra: Record<string, unknown> = {}): Promise<URL> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server, serverInfo: { name: 'sdk-runtime', version: '1.0.0' }, ...extra })
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return new URL('/mcp', address)
}

async function connect (t: Test, url: URL, era: 'legacy' | 'modern'): Promise<{ client: Client, messages: Array<{ level: string, data: unknown }> }> {
  const client = new Client({ name: 'sdk-runtime-test', version: '1.0.0' }, ERAS[era])
  const messages: Array<{ level: string, data: unknown }> = []
  client.setNotificationHandler('notifications/message', (notification) => {
    messages.push({ level: notification.params.level, data: notification.params.data })
  })
  await client.connect(new StreamableHTTPClientTransport(url))
  t.teardown(() => client.close())
  t.equal(client.getProtocolEra(), era)
  return { client, messages }
}

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: the client sees logging advertised and receives the logs it asked for`, async (t) => {
    const url = await start(t)
    const { client, messages } = await connect(t, url, era)
    t.strictSame(client.getServerCapabilities()?.logging, {}, 'logging is advertised')
    await client.callTool({ name: 'chatty', arguments: {} })
    t.strictSame(messages, [], 'no level asked for: nothing sent')
    if (era === 'legacy') {
      await client.setLoggingLevel('info')
      await client.callTool({ name: 'chatty', arguments: {} })
    } else {
      await client.callTool({ name: 'chatty', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'info' } })
    }
    t.strictSame(messages, [{ level: 'info', data: 'working' }, { level: 'error', data: 'trouble' }])
  })

  t.test(`${era}: a thrown tool error is an isError result with its message`, async (t) => {
    const url = await start(t)
    const { client } = await connect(t, url, era)
    for (const [name, text] of [['boom', 'disk full: /var/data'], ['asyncBoom', 'no such column "nme"']] as const) {
      const result = await client.callTool({ name, arguments: {} })
      t.equal(result.isError, true, `${name}: isError`)
      t.strictSame(result.content, [{ type: 'text', text }], `${name}: the error's message, for the model to correct itself`)
    }
    const proto = await client.callTool({ name: 'proto', arguments: {} }).then(() => undefined, (err: unknown) => err)
    t.ok(proto instanceof ProtocolError, 'an McpError thrown on purpose stays a protocol error')
    t.equal((proto as ProtocolError).code, ErrorCode.InvalidRequest, 'with its code')
    const unknown = await client.callTool({ name: 'nope', arguments: {} }).then(() => undefined, (err: unknown) => err)
    t.equal((unknown as ProtocolError).code, ErrorCode.InvalidParams, 'an unknown tool is still -32602')
  })

  t.test(`${era}: security.toolErrors 'mask' keeps the message from the client`, async (t) => {
    const url = await start(t, { security: { toolErrors: 'mask' } })
    const { client } = await connect(t, url, era)
    const result = await client.callTool({ name: 'boom', arguments: {} })
    t.equal(result.isError, true)
    t.strictSame(result.content, [{ type: 'text', text: 'Tool "boom" failed with an internal error' }])
  })
}
