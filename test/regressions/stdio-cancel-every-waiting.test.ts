// Guards a hostile review of the stdio intake (lib/stdio/intake.ts):
// docs/stdio.md promises that a request cancelled while it waits for a slot
// never runs. `notifications/cancelled` dropped only the first waiting
// request with that id, so a client that sent the id twice before
// cancelling it had the second one start, and be answered, after the
// cancellation (with a free slot the second would have been refused as a
// duplicate). Now every waiting request with the id goes; `1` and `"1"`
// stay different ids.
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { collectMessages, eventually } from '../stdio/helpers.js'

interface Peer {
  send: (message: object) => void
  messages: Array<Record<string, any>>
  /** Tags of the `note` calls that ran, in order. */
  notes: string[]
  /** Resolves once the one slot is taken by a `hold` call that waits until `release()`. */
  saturate: () => Promise<void>
  release: () => void
}

/** A connection with `maxInFlight: 1`: `hold` waits until released, `note` answers at once. */
async function connect (t: Test): Promise<Peer> {
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  let held = 0
  const notes: string[] = []
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'hold', inputSchema: { type: 'object' } }, { name: 'note', inputSchema: { type: 'object' } }] }),
      callTool: async (params: { name: string, arguments?: { tag?: string } }) => {
        if (params.name === 'hold') {
          held++
          await gate
          return { content: [] }
        }
        notes.push(params.arguments?.tag ?? '-')
        return { content: [] }
      }
    },
    serverInfo: { name: 'cancel-waiting', version: '1.0.0' }
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const stdio = await serveStdio(app, { input, output, maxInFlight: 1, handleSignals: false })
  t.teardown(async () => {
    release()
    await stdio.close()
  })
  const send = (message: object): void => { input.write(JSON.stringify(message) + '\n') }
  return {
    send,
    messages,
    notes,
    saturate: async () => {
      send({ jsonrpc: '2.0', id: 'hold', method: 'tools/call', params: { name: 'hold', arguments: {} } })
      await eventually(() => held === 1)
    },
    release: () => release()
  }
}

const note = (id: string | number, tag: string): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'note', arguments: { tag } } })
const cancel = (requestId: string | number): object => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } })

/** Lets every line written so far be read (the slot stays taken, so each waits or goes at once). */
async function settle (): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
}

t.test('two waiting requests under one id, then its cancellation: neither runs nor is answered', async (t) => {
  const peer = await connect(t)
  await peer.saturate()
  peer.send(note(5, 'first'))
  peer.send(note(5, 'second'))
  peer.send(cancel(5))
  peer.send(note(6, 'after'))
  await settle()
  peer.release()
  await eventually(() => peer.messages.some((m) => m.id === 6))
  await eventually(() => peer.messages.some((m) => m.id === 'hold'))
  t.same(peer.notes, ['after'], 'no request with the cancelled id ran')
  t.notOk(peer.messages.some((m) => m.id === 5), 'nothing written for the cancelled id')
})

t.test('cancelling "1" leaves the waiting request 1 alone, and the other way round', async (t) => {
  const peer = await connect(t)
  await peer.saturate()
  peer.send(note(1, 'number'))
  peer.send(note('1', 'string'))
  peer.send(note(2, 'number 2'))
  peer.send(note('2', 'string 2'))
  peer.send(cancel('1'))
  peer.send(cancel(2))
  await settle()
  peer.release()
  await eventually(() => peer.messages.some((m) => m.id === 1) && peer.messages.some((m) => m.id === '2'))
  t.same(peer.notes, ['number', 'string 2'], 'only the request of the very id cancelled was dropped, the rest ran in the order read')
})
