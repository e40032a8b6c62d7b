// Guards a hostile review of the stdio intake (lib/stdio/intake.ts): when
// stdin ends, docs/stdio.md gives the requests taken in `drainMs` before the
// app closes. With requests still waiting for a slot, the transport first
// waited, unbounded, for every one of them to get a slot, and only then
// started `drainMs`: behind a handler that does not end (one waiting on a
// client that has gone, `handlerTimeoutMs: 0`) the process never closed
// after the host ended stdin. Now `drainMs` starts when stdin ends and
// covers the waiting requests too; what is left when it is over is
// dropped (the waiting) or stopped by the app's close (the running).
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { collectMessages, eventually } from '../stdio/helpers.js'

t.test('stdin ends behind a handler that never ends, a request waiting for a slot: the app closes once drainMs is over', async (t) => {
  let held = 0
  const notes: string[] = []
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'hold', inputSchema: { type: 'object' } }, { name: 'note', inputSchema: { type: 'object' } }] }),
      callTool: async (params: { name: string }) => {
        if (params.name === 'note') {
          notes.push('note')
          return { content: [] }
        }
        held++
        // Never settles: only the app's close ends the call.
        return await new Promise(() => {})
      }
    },
    serverInfo: { name: 'drain-waiting', version: '1.0.0' },
    limits: { handlerTimeoutMs: 0 }
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const stdio = await serveStdio(app, { input, output, maxInFlight: 1, drainMs: 50, handleSignals: false })
  let closed = false
  void stdio.closed.then(() => { closed = true })
  t.teardown(() => stdio.close())

  input.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold', arguments: {} } }) + '\n')
  await eventually(() => held === 1)
  input.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'note', arguments: {} } }) + '\n')
  input.end()

  await eventually(() => closed)
  t.pass('the connection closed')
  t.match(messages.find((m) => m.id === 1), { error: { code: -32603 } }, 'the running call was stopped by the close and answered')
  t.same(notes, [], 'the waiting request never ran')
  t.notOk(messages.some((m) => m.id === 2), 'nor was it answered')
})
