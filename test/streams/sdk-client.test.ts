import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { test } from 'tap'
import type { HandlerContext } from '../../lib/index.js'
import { startApp } from './helpers.js'

const server = {
  listTools: () => ({ tools: [{ name: 'slow', inputSchema: { type: 'object' } }] }),
  async callTool (_params: Record<string, unknown>, ctx: HandlerContext) {
    ctx.progress(1, 2, 'halfway')
    ctx.progress(2, 2, 'done')
    return { content: [{ type: 'text', text: 'ok' }] }
  },
  listPrompts: () => ({ prompts: [] }),
  getPrompt: () => ({ messages: [] })
}

/**
 * The client's fetch pool lives in this process and can hold a connection it
 * never sent a request on; Node keeps such a connection (and so close()) open
 * until headersTimeout. Closing every connection keeps the tests short.
 */
const FORCE_CLOSE = { forceCloseConnections: true } as const

async function connect (port: number): Promise<Client> {
  const client = new Client({ name: 'streams-test-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  return client
}

test('official SDK client (2026-07-28): listen, receive notifyToolsChanged(), see the graceful close', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 50 } } })
  let closed = false
  t.teardown(async () => { if (!closed) await app.close() })
  const client = await connect(port)
  t.teardown(() => client.close())

  const received: unknown[] = []
  let notified: () => void = () => {}
  const arrived = new Promise<void>((resolve) => { notified = resolve })
  client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
    received.push(notification)
    notified()
  })

  const subscription = await client.listen({ toolsListChanged: true, resourcesListChanged: true })
  t.same(subscription.honoredFilter, { toolsListChanged: true }, 'the server has no resources, so only tools are honoured')
  t.equal(app.mcp.listenStreams, 1)

  t.equal(app.mcp.notifyToolsChanged(), 1)
  await arrived
  t.equal(received.length, 1)
  t.match(received[0], { method: 'notifications/tools/list_changed' })

  await app.close()
  closed = true
  t.equal(await subscription.closed, 'graceful', 'the final complete response reads as a graceful end')
})

test('official SDK client: close() on a subscription releases the server stream', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } }, undefined, FORCE_CLOSE)
  t.teardown(() => app.close())
  const client = await connect(port)
  t.teardown(() => client.close())
  const subscription = await client.listen({ promptsListChanged: true })
  t.same(subscription.honoredFilter, { promptsListChanged: true })
  t.equal(app.mcp.listenStreams, 1)
  await subscription.close()
  t.equal(await subscription.closed, 'local')
  for (let i = 0; i < 100 && app.mcp.listenStreams > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.equal(app.mcp.listenStreams, 0)
  t.equal(app.mcp.notifyPromptsChanged(), 0)
})

test('official SDK client: progress notifications reach onprogress before the result', async (t) => {
  const { app, port } = await startApp({ server, limits: { listen: { keepAliveMs: 0 } } }, undefined, FORCE_CLOSE)
  t.teardown(() => app.close())
  const client = await connect(port)
  t.teardown(() => client.close())
  const seen: Array<{ progress: number, total?: number, message?: string }> = []
  const result = await client.callTool({ name: 'slow', arguments: {} }, { onprogress: (p) => { seen.push(p) } })
  t.same(result.content, [{ type: 'text', text: 'ok' }])
  t.same(seen.map((p) => [p.progress, p.total, p.message]), [[1, 2, 'halfway'], [2, 2, 'done']])
})
