// A legacy stdio client that sent `initialize` again got a new session, but
// the connection's standalone stream stayed bound to the first one: the
// resources it subscribed to under the new session were never told updated,
// and the first session (no longer nameable by the client) lived on until it
// idled out. The replaced session now ends (DELETE) and the stream opens
// again for the new one (lib/stdio/connection.ts, legacy-stream.ts).
import Fastify from 'fastify'
import { PassThrough } from 'node:stream'
import t from 'tap'
import mcpCapabilities, { defineResources, defineTools } from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { eventually } from '../stdio/helpers.js'

const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }

t.test('initialize again: the old session ends, updates of what the new one subscribed arrive, list changes once', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: {
      ...defineTools({ noop: { description: 'Does nothing', handler: () => 'ok' } }),
      ...defineResources({ counter: { uri: 'test://counter', mimeType: 'text/plain', read: () => '1' } })
    },
    serverInfo: { name: 'stdio-reinit', version: '1.0.0' },
    sessions: true
  })
  // GETs by their start (a standalone stream answers only when it ends), DELETEs by their answer
  const seen: string[] = []
  app.addHook('onRequest', async (request) => {
    if (request.method === 'GET') seen.push(`GET ${String(request.headers['mcp-session-id'] ?? '-')}`)
  })
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'DELETE') seen.push(`DELETE ${reply.statusCode} ${String(request.headers['mcp-session-id'] ?? '-')}`)
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages: Array<Record<string, any>> = []
  output.on('data', (chunk: Buffer) => { for (const line of chunk.toString().split('\n')) if (line !== '') messages.push(JSON.parse(line)) })
  const server = await serveStdio(app, { input, output, handleSignals: false })
  t.teardown(() => server.close())
  const send = (message: object): void => { input.write(JSON.stringify(message) + '\n') }
  const answer = async (id: number): Promise<Record<string, any>> => {
    await eventually(() => messages.some((m) => m.id === id))
    return messages.find((m) => m.id === id) as Record<string, any>
  }
  const heard = (method: string): number => messages.filter((m) => m.method === method).length

  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT })
  await answer(1)
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  await eventually(() => seen.some((line) => line.startsWith('GET ')))
  const first = seen.find((line) => line.startsWith('GET '))?.split(' ')[1] as string

  send({ jsonrpc: '2.0', id: 2, method: 'initialize', params: INIT })
  await answer(2)
  await eventually(() => seen.filter((line) => line.startsWith('GET ')).length === 2)
  const second = seen.filter((line) => line.startsWith('GET '))[1]?.split(' ')[1] as string
  t.not(second, first, 'the second initialize opened a new session, and the stream opened again with it')
  await eventually(() => seen.includes(`DELETE 204 ${first}`))
  t.pass(`the replaced session was ended (${first})`)

  send({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'test://counter' } })
  t.strictSame((await answer(3)).result, {}, 'subscribed under the new session')
  app.mcp.notifyResourceUpdated('test://counter')
  await eventually(() => heard('notifications/resources/updated') === 1)
  t.equal(app.mcp.notifyToolsChanged(), 1, 'one standalone stream open, not two')
  await eventually(() => heard('notifications/tools/list_changed') === 1)
  send({ jsonrpc: '2.0', id: 4, method: 'ping' })
  await answer(4)
  t.equal(heard('notifications/resources/updated'), 1, 'the update told once')
  t.equal(heard('notifications/tools/list_changed'), 1, 'the list change told once')
})
