import http from 'node:http'
import { test } from 'tap'
import type { HandlerContext } from '../../lib/index.js'
import { modernHeaders, modernRequest, SseReader, startApp } from './helpers.js'

interface Counts { all: number, live: number }
interface Observed { aborted: boolean, writtenAtAbort: number, writtenAfter: number, callsAtAbort: Counts, callsAfter: Counts }

/** Calls to write/end on the raw response (all, and while its socket was open), counted from an onRequest hook. */
const rawCalls: Counts = { all: 0, live: 0 }

/** A tool that waits for cancellation (at most 5 s), then tries to emit more. */
function makeServer (streamFirst: boolean) {
  let started: () => void = () => {}
  let settle: (value: Observed) => void = () => {}
  const running = new Promise<void>((resolve) => { started = resolve })
  const observed = new Promise<Observed>((resolve) => { settle = resolve })
  const server = {
    listTools: () => ({ tools: [] }),
    async callTool (_params: Record<string, unknown>, ctx: HandlerContext) {
      if (streamFirst) ctx.progress(1, 10, 'started')
      const socket = ctx.request.raw.socket
      const aborted = new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 5000)
        ctx.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(true) }, { once: true })
      })
      started()
      const wasAborted = await aborted
      const writtenAtAbort = socket.bytesWritten
      const callsAtAbort = { ...rawCalls }
      ctx.progress(2, 10, 'after cancel')
      ctx.log('emergency', 'after cancel')
      setImmediate(() => settle({ aborted: wasAborted, writtenAtAbort, writtenAfter: socket.bytesWritten, callsAtAbort, callsAfter: { ...rawCalls } }))
      return { content: [] }
    }
  }
  return { server, running, observed }
}

for (const streamFirst of [true, false]) {
  test(`closing the ${streamFirst ? 'SSE' : 'pending JSON'} response cancels the request: ctx.signal fires, nothing more is written`, async (t) => {
    const { server, running, observed } = makeServer(streamFirst)
    const errors: string[] = []
    const { app, port } = await startApp({ server }, (app) => {
      app.addHook('onError', async (_request, _reply, err) => { errors.push(err.message) })
      app.addHook('onRequest', async (_request, reply) => {
        const raw = reply.raw
        for (const name of ['write', 'end'] as const) {
          const original = raw[name] as (...args: unknown[]) => unknown
          ;(raw as any)[name] = function (this: unknown, ...args: unknown[]) {
            rawCalls.all++
            if (!raw.destroyed) rawCalls.live++
            return original.apply(this, args)
          }
        }
      })
    })
    t.teardown(() => app.close())

    const meta = { progressToken: 'c', 'io.modelcontextprotocol/logLevel': 'debug' }
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...modernHeaders('tools/call', 'wait') }
    })
    req.on('error', () => {})
    const head = new Promise<http.IncomingMessage>((resolve) => req.once('response', resolve))
    req.end(JSON.stringify(modernRequest(1, 'tools/call', { name: 'wait' }, meta)))
    await running

    if (streamFirst) {
      const res = await head
      t.equal(res.headers['content-type'], 'text/event-stream')
      const first = await new SseReader(res).nextMessage()
      t.equal(first.params.message, 'started')
    }
    req.destroy()

    const seen = await observed
    t.ok(seen.aborted, 'the handler saw the abort')
    t.equal(seen.writtenAfter, seen.writtenAtAbort, 'no bytes written after the client went away')
    if (streamFirst) {
      t.same(seen.callsAfter, seen.callsAtAbort, 'the stream attempts no write after the abort')
    } else {
      // Fastify still finishes its reply bookkeeping (hooks, end() on the dead response); nothing reaches the wire
      t.equal(seen.callsAfter.live, seen.callsAtAbort.live, 'no write on a live response after the abort')
    }
    t.same(errors, [], 'no endpoint error')
  })
}
