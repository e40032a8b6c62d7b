// Guards issue 22 item 10: a legacy `notifications/cancelled` was
// acknowledged and ignored, so the handler ran on until it ended or
// `handlerTimeoutMs` (5 min), though the 2025-11-25 transport says clients
// cancel this way, not by disconnecting. Decision: the notification aborts
// the handler's `ctx.signal` of the SAME caller's pending request with that
// `requestId` and, as the cancellation utility says a receiver SHOULD, no
// response is sent for it: the POST's response ends without one (an SSE
// stream already open ends; otherwise an empty stream, or 204 for a client
// that takes no stream). Another caller's id, an id of another type
// (`"7"` is not `7`), an unknown or finished id: acknowledged (202), no effect.
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type HandlerContext } from '../../lib/index.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const VERSION = '2025-11-25'

interface Run { started: Promise<void>, aborted: boolean, reason: unknown }

async function build (t: Test): Promise<{ app: FastifyInstance, runs: Map<string, Run> }> {
  const runs = new Map<string, Run>()
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'slow', inputSchema: { type: 'object' } }] }),
      async callTool (params: { arguments?: { run?: string, progress?: boolean } }, ctx: HandlerContext) {
        const name = String(params.arguments?.run)
        let started!: () => void
        const run: Run = { started: new Promise((resolve) => { started = resolve }), aborted: false, reason: undefined }
        runs.set(name, run)
        if (params.arguments?.progress === true) ctx.progress(1, 2, 'working')
        started()
        // Runs until cancelled, or 1.5 s (what an ignored cancellation looks like).
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 1500)
          ctx.signal.addEventListener('abort', () => {
            run.aborted = true
            run.reason = ctx.signal.reason
            clearTimeout(timer)
            resolve()
          })
        })
        return { content: [{ type: 'text', text: 'finished' }] }
      }
    },
    serverInfo: SERVER_INFO,
    authorization: {
      resource: RESOURCE,
      authorizationServers: ['https://auth.example.com'],
      verifyAccessToken: (token) => ({ subject: token, issuer: 'https://auth.example.com' })
    }
  })
  return { app, runs }
}

function call (app: FastifyInstance, who: string, id: string | number, run: string, options: { accept?: string, progress?: boolean, token?: boolean } = {}) {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: options.accept ?? 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, authorization: `Bearer ${who}` },
    payload: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: { run, progress: options.progress === true }, _meta: options.token === false ? undefined : { progressToken: 'p' } } })
  })
}

function cancel (app: FastifyInstance, who: string, requestId: unknown) {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': VERSION, authorization: `Bearer ${who}` },
    payload: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'user pressed stop' } })
  })
}

const tick = (ms = 30): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The run once its handler has started (the request is authenticated and parsed first). */
async function startedRun (runs: Map<string, Run>, name: string): Promise<Run> {
  for (let waited = 0; !runs.has(name) && waited < 5000; waited += 5) await tick(5)
  const run = runs.get(name) as Run
  await run.started
  return run
}

t.test('only the same caller cancels its request with that id; the request gets no response', async (t) => {
  const { app, runs } = await build(t)
  const pending = call(app, 'alice', 7, 'a')
  const run = await startedRun(runs, 'a')
  for (const [who, requestId] of [['bob', 7], ['alice', '7'], ['alice', 8], ['alice', null], ['bob', 'x'.repeat(10_000)]] as const) {
    t.equal((await cancel(app, who, requestId)).statusCode, 202, `${who} cancelling ${JSON.stringify(requestId).slice(0, 12)}: acknowledged`)
  }
  await tick()
  t.notOk(run.aborted, 'another caller, another id type, an unknown or malformed id: the handler runs on')
  const started = Date.now()
  t.equal((await cancel(app, 'alice', 7)).statusCode, 202)
  const reply = await pending
  t.ok(Date.now() - started < 1000, 'the request ended at once, not when the handler would have')
  t.ok(run.aborted, 'the handler\'s ctx.signal aborted')
  t.match(String((run.reason as Error)?.message), /cancel/, 'with a reason saying so')
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^text\/event-stream/, 'an SSE stream (what a request may be answered with)')
  t.equal(reply.body, '', 'that carries no response for the cancelled request')
  // Late or repeated: nothing left to cancel, nothing breaks.
  t.equal((await cancel(app, 'alice', 7)).statusCode, 202)
  const next = await Promise.all([call(app, 'alice', 7, 'again'), tick(1600)])
  t.match(next[0].body, /finished/, 'the id can be used again afterwards and is answered normally')
})

t.test('a stream already open ends without the response', async (t) => {
  const { app, runs } = await build(t)
  const pending = call(app, 'alice', 'req-1', 'p', { progress: true })
  await startedRun(runs, 'p')
  await cancel(app, 'alice', 'req-1')
  const reply = await pending
  t.match(reply.headers['content-type'], /^text\/event-stream/)
  t.match(reply.body, /notifications\/progress/, 'the progress sent before is there')
  t.notMatch(reply.body, /"result"|"error"/, 'no response after it')
})

t.test('a client that takes no stream gets 204', async (t) => {
  const { app, runs } = await build(t)
  const pending = call(app, 'alice', 3, 'j', { accept: 'application/json' })
  await startedRun(runs, 'j')
  await cancel(app, 'alice', 3)
  const reply = await pending
  t.equal(reply.statusCode, 204)
  t.equal(reply.body, '')
})

t.test('a request without a progress token ends the same ways when cancelled', async (t) => {
  const { app, runs } = await build(t)
  const streamed = call(app, 'alice', 4, 'n1', { token: false })
  await startedRun(runs, 'n1')
  await cancel(app, 'alice', 4)
  const reply = await streamed
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^text\/event-stream/, 'an empty SSE stream')
  t.equal(reply.body, '')
  const plain = call(app, 'alice', 5, 'n2', { token: false, accept: 'application/json' })
  await startedRun(runs, 'n2')
  await cancel(app, 'alice', 5)
  t.equal((await plain).statusCode, 204, 'or 204 for a client that takes no stream')
  const answered = await call(app, 'alice', 6, 'n3', { token: false, progress: true })
  t.equal(answered.statusCode, 200)
  t.match(answered.headers['content-type'], /^application\/json/, 'an uncancelled one is answered as plain JSON (ctx.progress without a token sends nothing)')
  t.match(answered.body, /"result".*finished/)
})
