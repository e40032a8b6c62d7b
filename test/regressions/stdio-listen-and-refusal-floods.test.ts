// Guards a hostile review of the stdio intake (lib/stdio/intake.ts,
// lib/stdio/connection.ts): docs/stdio.md promises that at most twice
// `maxInFlight` messages are taken in, whatever the client sends, and that
// a host reading slowly slows the server down instead of growing a queue.
// Two kinds of request escaped the count:
// - `subscriptions/listen`: never counted, so behind a slow onRequest hook
//   (a token check, a rate limiter) every listen request written reached
//   the app at once (200 of 200 here). Now one counts until its stream
//   opened (its acknowledgement written) or it was refused;
// - a request refused by the transport itself (an id already in flight, a
//   request of the other era): its error was written without counting, so a
//   host that read nothing had every refused line's answer pile up in
//   stdout's buffer (1000 of 1000 here). Now a refusal counts while the
//   output makes it wait, as an answer does.
import { PassThrough, Writable } from 'node:stream'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { modernMeta } from '../helpers/mcp-inject.js'
import { collectMessages, eventually } from '../stdio/helpers.js'

const MAX_IN_FLIGHT = 8
const MODERN = modernMeta()
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged'

const server = (hold: Promise<void>, held: () => void) => ({
  listTools: () => ({ tools: [{ name: 'hold', inputSchema: { type: 'object' } }] }),
  callTool: async () => {
    held()
    await hold
    return { content: [] }
  }
})

/** Lets every line the reader would take go as far as it can. */
async function settle (): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
}

function gate (): { wait: Promise<void>, open: () => void } {
  let open: () => void = () => {}
  const wait = new Promise<void>((resolve) => { open = resolve })
  return { wait, open }
}

t.test('a flood of subscriptions/listen behind a slow hook: maxInFlight reach the app, every one opened or refused once released', async (t) => {
  const SENT = 200
  const hook = gate()
  let entered = 0
  const app = Fastify()
  await app.register(mcpCapabilities, { server: server(Promise.resolve(), () => {}), serverInfo: { name: 'listen-flood', version: '1.0.0' }, limits: { listen: { keepAliveMs: 0 } } })
  app.addHook('onRequest', async () => {
    entered++
    await hook.wait
  })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const stdio = await serveStdio(app, { input, output, maxInFlight: MAX_IN_FLIGHT, handleSignals: false })
  t.teardown(async () => {
    hook.open()
    await stdio.close()
  })

  let lines = ''
  for (let id = 0; id < SENT; id++) lines += JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { _meta: MODERN, notifications: { toolsListChanged: true } } }) + '\n'
  input.write(lines)
  await eventually(() => entered >= MAX_IN_FLIGHT)
  await settle()
  t.equal(entered, MAX_IN_FLIGHT, 'listen requests wait for a slot like any request')

  hook.open()
  const answered = (id: number): boolean => messages.some((m) => m.id === id || (m.method === ACKNOWLEDGED && m.params?._meta?.['io.modelcontextprotocol/subscriptionId'] === id))
  await eventually(() => Array.from({ length: SENT }, (_, id) => id).every(answered))
  t.equal(entered, SENT, 'every one reached the app once released')
  // The default per-caller bound (100): an open stream frees its slot, the rest are refused with their id.
  t.equal(messages.filter((m) => m.method === ACKNOWLEDGED).length, 100, 'streams opened up to the per-caller bound')
  t.equal(messages.filter((m) => m.error !== undefined && typeof m.id === 'number').length, SENT - 100, 'the rest refused')
})

t.test('requests refused by the transport while the host reads nothing: the refusals wait for the output like answers', async (t) => {
  const SENT = 1000
  const handler = gate()
  let held = 0
  const app = Fastify()
  await app.register(mcpCapabilities, { server: server(handler.wait, () => { held++ }), serverInfo: { name: 'refusal-flood', version: '1.0.0' } })
  const input = new PassThrough()
  // A host that reads nothing until `read()`: every write past the first waits in the stream's buffer.
  const written: Array<Record<string, any>> = []
  let pending: (() => void) | undefined
  let reading = false
  const output = new Writable({
    highWaterMark: 64,
    write (chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') written.push(JSON.parse(line))
      if (reading) done()
      else pending = done
    }
  })
  const read = (): void => {
    reading = true
    pending?.()
  }
  let lines = 0
  const write = output.write.bind(output) as (chunk: string) => boolean
  output.write = ((chunk: string) => {
    lines++
    return write(chunk)
  }) as typeof output.write
  const stdio = await serveStdio(app, { input, output, maxInFlight: MAX_IN_FLIGHT, handleSignals: false })
  t.teardown(async () => {
    handler.open()
    read()
    await stdio.close()
  })

  const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hold', arguments: {} } }) + '\n'
  input.write(call)
  await eventually(() => held === 1)
  // The same id again and again while the first is in flight: each is refused by the transport.
  input.write(call.repeat(SENT))
  await settle()
  t.equal(lines, MAX_IN_FLIGHT - 1, 'refusals handed to the output stop at maxInFlight (the held call takes one slot)')

  read()
  await eventually(() => written.length === SENT)
  t.equal(written.filter((m) => m.id === 1 && m.error?.code === -32600).length, SENT, 'every duplicate refused once the host reads')
  handler.open()
  await eventually(() => written.length === SENT + 1)
  t.equal(written.filter((m) => m.id === 1 && m.result !== undefined).length, 1, 'the held call answered')
})
