// Guards a hostile review's stdio finding: reading stdin paused while
// `maxInFlight` messages were in flight, answers to the server's own
// questions included. When every request in flight was a handler waiting on
// the client (a legacy `ctx.elicit()`), the answers that would finish them
// sat unread behind the pause until `clientRequestTimeoutMs` failed them:
// with `maxInFlight: 1` one eliciting tool stalled every time. Now, while
// saturated, the reader goes on for up to another `maxInFlight` messages
// (at least 8): answers and `notifications/cancelled` go to the endpoint at
// once, new requests and other notifications wait their turn in the order
// read.
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type HandlerContext } from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { collectMessages, eventually, gatedStdio } from '../stdio/helpers.js'

const INITIALIZE = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } }
const ELICITATION = 'elicitation/create'

interface Peer {
  messages: Array<Record<string, any>>
  send: (message: object) => void
  input: PassThrough
  server: Awaited<ReturnType<typeof serveStdio>>
  /** Names of the `note` calls the handler saw, in the order it saw them. */
  notes: string[]
  /** The elicitation requests the server wrote so far. */
  elicitations: () => Array<Record<string, any>>
}

/** A legacy connection over `serveStdio` whose `ask` tool elicits and whose `note` tool answers at once. */
async function connect (t: Test, maxInFlight: number): Promise<Peer> {
  const notes: string[] = []
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'ask', inputSchema: { type: 'object' } }, { name: 'note', inputSchema: { type: 'object' } }] }),
      callTool: async (params: { name: string, arguments?: { tag?: string } }, ctx: HandlerContext) => {
        const tag = params.arguments?.tag ?? '-'
        if (params.name === 'note') {
          notes.push(tag)
          return { content: [{ type: 'text', text: `noted ${tag}` }] }
        }
        const answer = await ctx.elicit({ message: tag, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
        return { content: [{ type: 'text', text: `${tag}: ${String(answer.content?.name)}` }] }
      }
    },
    serverInfo: { name: 'answers', version: '1.0.0' },
    // Far past the test's own bound: a stall shows as no answer, never as this timeout's error.
    limits: { clientRequestTimeoutMs: 600_000 }
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const server = await serveStdio(app, { input, output, maxInFlight, handleSignals: false })
  t.teardown(() => server.close())
  const send = (message: object): void => { input.write(JSON.stringify(message) + '\n') }
  send(INITIALIZE)
  await eventually(() => messages.some((m) => m.id === 'init'))
  send({ jsonrpc: '2.0', method: 'notifications/initialized' })
  return { messages, send, input, server, notes, elicitations: () => messages.filter((m) => m.method === ELICITATION) }
}

const call = (id: number, name: string, tag: string): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: { tag } } })

/** The client's answer to the elicitation that asked about `tag`. */
function answer (peer: Peer, tag: string, name: string): object {
  const request = peer.elicitations().find((m) => m.params.message === tag)
  if (request === undefined) throw new Error(`no elicitation about ${tag}`)
  return { jsonrpc: '2.0', id: request.id, result: { action: 'accept', content: { name } } }
}

function textOf (peer: Peer, id: number): string | undefined {
  return peer.messages.find((m) => m.id === id)?.result?.content?.[0]?.text
}

function noTimeouts (t: Test, peer: Peer): void {
  t.notOk(peer.messages.some((m) => /timed out/i.test(String(m.error?.message ?? m.result?.content?.[0]?.text ?? ''))), 'nothing failed by the client-request timeout')
}

t.test('maxInFlight 1: the one request in flight elicits, the client\'s answer is read and the tool answers', async (t) => {
  const peer = await connect(t, 1)
  peer.send(call(1, 'ask', 'a'))
  await eventually(() => peer.elicitations().length === 1)
  peer.send(answer(peer, 'a', 'Ada'))
  await eventually(() => textOf(peer, 1) !== undefined)
  t.equal(textOf(peer, 1), 'a: Ada', 'the tool finished with the client\'s answer')
  noTimeouts(t, peer)
})

t.test('maxInFlight 3, every slot waiting on the client: each answer is read, each tool answers', async (t) => {
  const peer = await connect(t, 3)
  for (const [i, tag] of ['a', 'b', 'c'].entries()) peer.send(call(i + 1, 'ask', tag))
  await eventually(() => peer.elicitations().length === 3)
  // Answered in the reverse order: each answer settles its own question.
  for (const tag of ['c', 'b', 'a']) peer.send(answer(peer, tag, tag.toUpperCase()))
  await eventually(() => [1, 2, 3].every((id) => textOf(peer, id) !== undefined))
  t.same([1, 2, 3].map((id) => textOf(peer, id)), ['a: A', 'b: B', 'c: C'])
  noTimeouts(t, peer)
})

t.test('requests read while saturated wait their turn, in the order read; the answer behind them passes', async (t) => {
  const peer = await connect(t, 1)
  peer.send(call(1, 'ask', 'a'))
  await eventually(() => peer.elicitations().length === 1)
  // More than maxInFlight of them: the read-ahead has a floor, so a few requests before the answer do not stall it.
  const tags = ['first', 'second', 'third']
  tags.forEach((tag, i) => peer.send(call(10 + i, 'note', tag)))
  peer.send(answer(peer, 'a', 'b'))
  await eventually(() => [1, 10, 11, 12].every((id) => textOf(peer, id) !== undefined))
  t.same(peer.notes, tags, 'the waiting requests reached the handler in the order they were read')
  t.equal(textOf(peer, 1), 'a: b')
  noTimeouts(t, peer)
})

t.test('a request cancelled while it waits for a slot never runs and is not answered', async (t) => {
  const peer = await connect(t, 2)
  peer.send(call(1, 'ask', 'a'))
  peer.send(call(2, 'ask', 'b'))
  await eventually(() => peer.elicitations().length === 2)
  peer.send(call(10, 'note', 'cancelled'))
  peer.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'changed my mind' } })
  peer.send(answer(peer, 'a', 'x'))
  peer.send(answer(peer, 'b', 'y'))
  peer.send(call(11, 'note', 'after'))
  await eventually(() => textOf(peer, 11) !== undefined)
  t.same(peer.notes, ['after'], 'the cancelled request never reached the handler')
  t.notOk(peer.messages.some((m) => m.id === 10), 'nothing written for the cancelled request')
  t.same([1, 2].map((id) => textOf(peer, id)), ['a: x', 'b: y'])
})

t.test('stdin ending while requests wait for a slot: each still goes to the endpoint and is answered before the app closes', async (t) => {
  const peer = await connect(t, 1)
  peer.send(call(1, 'ask', 'a'))
  await eventually(() => peer.elicitations().length === 1)
  peer.send(call(10, 'note', 'waiting'))
  peer.send(answer(peer, 'a', 'z'))
  peer.input.end()
  await peer.server.closed
  t.equal(textOf(peer, 1), 'a: z')
  t.equal(textOf(peer, 10), 'noted waiting', 'the request that waited was answered too')
})

for (const [maxInFlight, takenIn] of [[8, 16], [1, 9]] as const) {
  t.test(`a flood of bogus answers behind a slow hook, maxInFlight ${maxInFlight}: ${takenIn} taken in, every one served once released`, async (t) => {
    await flood(t, maxInFlight, takenIn)
  })
}

/** 1000 answers to questions never asked, written at once, each held by an onRequest hook until released. */
async function flood (t: Test, maxInFlight: number, takenIn: number): Promise<void> {
  const SENT = 1000
  const gated = await gatedStdio(t, { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) }, maxInFlight)
  let lines = ''
  for (let i = 0; i < SENT; i++) lines += JSON.stringify({ jsonrpc: '2.0', id: `bogus-${i}`, result: {} }) + '\n'
  gated.input.write(lines)
  await eventually(() => gated.entered() >= takenIn)
  await gated.settle()
  t.equal(gated.entered(), takenIn, 'reading paused once the read-ahead (maxInFlight, at least 8) was taken too')
  gated.release()
  await eventually(() => gated.served() === SENT)
  t.equal(gated.entered(), SENT, 'every answer reached the app once released')
}
