// Guards issue 11 item 9: `fastify.close()` never finished while a handler
// was pending (ctx.signal fired only when the client went away). On close,
// in-flight handlers' signals abort and their requests are answered with a
// JSON-RPC error carrying the id, within a bounded time. `limits.handlerTimeoutMs`
// bounds a hung handler the same way.
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type HandlerContext, type McpCapabilitiesOptions } from '../../lib/index.js'
import { errors } from '../../lib/index.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta, rawPost } from '../helpers/mcp-inject.js'

function hungServer (entered: () => void, signals: AbortSignal[]) {
  return {
    listTools: () => ({ tools: [{ name: 'hang', inputSchema: { type: 'object' } }, { name: 'wait', inputSchema: { type: 'object' } }] }),
    callTool ({ name }: { name: string }, ctx: HandlerContext) {
      signals.push(ctx.signal)
      entered()
      // `wait` honours the signal, `hang` ignores it entirely.
      return new Promise((resolve) => {
        if (name === 'wait') ctx.signal.addEventListener('abort', () => resolve({ content: [{ type: 'text', text: 'late' }] }))
      })
    }
  }
}

async function start (t: Test, options: Partial<McpCapabilitiesOptions>, signals: AbortSignal[]) {
  let entered!: () => void
  const first = new Promise<void>((resolve) => { entered = resolve })
  const app = Fastify()
  await app.register(mcpCapabilities, { server: hungServer(() => entered(), signals), serverInfo: SERVER_INFO, ...options })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { app, port: address.port, first }
}

function call (port: number, id: number, name: string, era: 'modern' | 'legacy') {
  const params = era === 'modern' ? { name, arguments: {}, _meta: modernMeta() } : { name, arguments: {} }
  const headers: Record<string, string> = era === 'modern'
    ? { ...modernHeaders('tools/call', { name }), 'content-type': 'application/json' }
    : { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  return rawPost({ port }, headers, JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }))
}

for (const name of ['hang', 'wait']) {
  for (const era of ['modern', 'legacy'] as const) {
    t.test(`close() with a pending ${era} "${name}" handler: aborts, answers with the id, finishes`, async (t) => {
      const signals: AbortSignal[] = []
      const { app, port, first } = await start(t, {}, signals)
      const reply = call(port, 42, name, era)
      await first
      const began = Date.now()
      await app.close()
      const closedIn = Date.now() - began
      t.ok(closedIn < 3000, `close finished in ${closedIn} ms`)
      t.ok(signals[0]?.aborted, 'the handler\'s signal aborted')
      const answer = await reply
      t.equal(answer.status, 200)
      const json = JSON.parse(answer.body)
      t.equal(json.id, 42)
      if (name === 'wait') {
        // It honoured its signal in time: its own answer goes out.
        t.strictSame(json.result?.content, [{ type: 'text', text: 'late' }])
      } else {
        t.equal(json.error.code, -32603)
        t.match(json.error.message, /shutting down/)
      }
    })
  }
}

t.test('limits.handlerTimeoutMs: a hung handler is aborted and answered -32603 with its id', async (t) => {
  const signals: AbortSignal[] = []
  const { port } = await start(t, { limits: { handlerTimeoutMs: 200 } }, signals)
  const began = Date.now()
  const answer = await call(port, 'slow' as unknown as number, 'hang', 'modern')
  const took = Date.now() - began
  t.ok(took >= 150 && took < 3000, `answered after ${took} ms`)
  const json = JSON.parse(answer.body)
  t.equal(answer.status, 200)
  t.equal(json.id, 'slow')
  t.equal(json.error.code, -32603)
  t.match(json.error.message, /timed out/)
  t.ok(signals[0]?.aborted, 'its signal aborted')
})

t.test('limits.handlerTimeoutMs is checked at registration', async (t) => {
  for (const bad of [-1, 1.5, 'x', Number.POSITIVE_INFINITY]) {
    const app = Fastify()
    await t.rejects(async () => { await app.register(mcpCapabilities, { server: hungServer(() => {}, []), serverInfo: SERVER_INFO, limits: { handlerTimeoutMs: bad as number } }) },
      errors.FST_MCP_INVALID_OPTION)
    await app.close()
  }
})
