/**
 * Client input in the legacy era, over real HTTP on 127.0.0.1: the server's
 * request goes out on the SSE response of the client's POST, the client POSTs
 * its JSON-RPC response back (202), and the call completes on the same
 * stream. Every message either side sends is checked against the schema of
 * the protocol version in use.
 */
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { httpPost } from '../helpers/mcp-inject.js'
import { responseProblems, specProblems, type SpecVersion } from '../helpers/spec-schemas.js'
import { accept, ASK_COLOR, ASK_NAME, clientRequestModule, type Probe, ROOTS, SAMPLE, sampled } from './fixtures.js'
import { legacyHeaders, openCall, type StreamCall } from './stream-call.js'

const LATEST = '2025-11-25'
const REQUEST_DEFS: Record<string, string> = {
  'elicitation/create': 'ElicitRequest',
  'sampling/createMessage': 'CreateMessageRequest',
  'roots/list': 'ListRootsRequest'
}
const RESULT_DEFS: Record<string, string> = {
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult'
}

interface Server {
  app: FastifyInstance
  url: string
  probe: Probe
}

async function serve (t: Test, options: Record<string, unknown> = {}): Promise<Server> {
  const probe: Probe = { seen: [], runs: {}, question: 'Q1' }
  const app = Fastify()
  await app.register(mcpCapabilities, { server: clientRequestModule(probe), serverInfo: SERVER_INFO, ...options })
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  t.teardown(() => app.close())
  return { app, url: `${address}/mcp`, probe }
}

let nextId = 1

/** POSTs tools/call `name` at `version`; expects the response to become an SSE stream. */
async function callTool (t: Test, server: Server, name: string, version: string = LATEST, accept?: string): Promise<{ call: StreamCall, id: number }> {
  const id = nextId++
  const call = await openCall(server.url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }, legacyHeaders(version, accept))
  t.equal(call.status, 200, 'HTTP 200')
  return { call, id }
}

/** Reads the next message: a server request, checked against the version's schema (a legacy request always has an id). */
async function nextRequest (t: Test, call: StreamCall, version: SpecVersion = LATEST): Promise<{ id: string, method: string, params: any }> {
  t.match(call.contentType, /^text\/event-stream/, 'the response is an SSE stream')
  const message = await call.next()
  t.equal(message?.jsonrpc, '2.0')
  t.type(message?.id, 'string', 'a server-generated string id')
  t.strictSame(specProblems(version, 'JSONRPCRequest', message), [], 'a valid JSON-RPC request')
  const def = REQUEST_DEFS[message?.method]
  t.ok(def, `a client request (${String(message?.method)})`)
  const { jsonrpc: _j, id: _i, ...body } = message
  // 2025-11-25 defines the request with its envelope; older versions without.
  if (def !== undefined) t.strictSame(specProblems(version, def, version >= '2025-11-25' ? message : body), [], `a valid ${def} at ${version}`)
  return message
}

/** POSTs the client's answer (checked against the version's schema); the endpoint acknowledges with 202. */
async function answer (t: Test, server: Server, request: { id: string, method: string }, result: unknown, version: SpecVersion = LATEST): Promise<void> {
  const def = RESULT_DEFS[request.method]
  if (def !== undefined) t.strictSame(specProblems(version, def, result), [], `a valid ${def}`)
  const reply = await httpPost(t, server.url, { jsonrpc: '2.0', id: request.id, result }, legacyHeaders(version))
  t.equal(reply.status, 202, 'the answer is acknowledged with 202')
}

/** Reads the final response: last on the stream, valid for tools/call at `version`, then the stream ends. */
async function final (t: Test, call: StreamCall, id: number, version: SpecVersion = LATEST): Promise<any> {
  const message = await call.next()
  t.equal(message?.id, id, 'the response to the tools/call')
  t.strictSame(responseProblems(version, message, 'tools/call'), [], `a valid tools/call response at ${version}`)
  t.strictSame(await call.ended(), [], 'nothing follows the response; the stream ends')
  return message
}

const textResult = (text: string) => ({ content: [{ type: 'text', text }] })

t.test('elicitation: a request on the stream, the POSTed answer completes the call', async (t) => {
  const server = await serve(t)
  const { call, id } = await callTool(t, server, 'greet')
  const request = await nextRequest(t, call)
  t.equal(request.method, 'elicitation/create')
  t.strictSame(request.params, ASK_NAME, 'the handler\'s params as given')
  await answer(t, server, request, accept({ name: 'Ada' }))
  t.strictSame((await final(t, call, id)).result, textResult('Hello, Ada'))
})

t.test('several requests at once and in sequence, answered in any order', async (t) => {
  const server = await serve(t)
  const { call, id } = await callTool(t, server, 'everything')
  const requests = [await nextRequest(t, call), await nextRequest(t, call), await nextRequest(t, call)]
  t.strictSame(requests.map((r) => r.method), ['elicitation/create', 'sampling/createMessage', 'roots/list'], 'all three sent before any answer')
  t.strictSame(requests[1]?.params, SAMPLE)
  t.equal(new Set(requests.map((r) => r.id)).size, 3, 'each with its own id')
  const results = [accept({ name: 'Ada' }), sampled('hi'), ROOTS]
  for (const i of [2, 0, 1]) await answer(t, server, requests[i] as { id: string, method: string }, results[i])
  t.strictSame((await final(t, call, id)).result, textResult('Ada / {"type":"text","text":"hi"} / file:///work'))

  const rounds = await callTool(t, server, 'rounds')
  const first = await nextRequest(t, rounds.call)
  t.strictSame(first.params, ASK_NAME)
  await answer(t, server, first, accept({ name: 'Ada' }))
  const second = await nextRequest(t, rounds.call)
  t.strictSame(second.params, ASK_COLOR, 'the next request only after the first answer')
  await answer(t, server, second, accept({ color: 'blue' }))
  await answer(t, server, await nextRequest(t, rounds.call), ROOTS)
  t.strictSame((await final(t, rounds.call, rounds.id)).result, textResult('Ada likes blue in 1 roots'))
})

t.test('what each legacy version can be asked', async (t) => {
  const server = await serve(t)
  // 2025-06-18 has elicitation but no `mode`: a form request goes out without it.
  const form = await callTool(t, server, 'form', '2025-06-18')
  const request = await nextRequest(t, form.call, '2025-06-18')
  t.strictSame(request.params, ASK_NAME, 'mode: "form" left out')
  await answer(t, server, request, accept({ name: 'Ada' }), '2025-06-18')
  t.strictSame((await final(t, form.call, form.id, '2025-06-18')).result, textResult('form accept'))

  const form25 = await callTool(t, server, 'form', LATEST)
  t.strictSame((await nextRequest(t, form25.call)).params, { mode: 'form', ...ASK_NAME }, '2025-11-25 keeps the mode')
  form25.call.destroy()

  // URL mode at 2025-11-25 needs an elicitationId; the endpoint adds one when the handler did not.
  const url = await callTool(t, server, 'url', LATEST)
  const urlRequest = await nextRequest(t, url.call)
  t.match(urlRequest.params, { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: /^[0-9a-f-]{36}$/ })
  await answer(t, server, urlRequest, { action: 'accept' })
  t.strictSame((await final(t, url.call, url.id)).result, textResult('url accept'))

  // 2024-11-05 already had sampling and roots.
  const sample = await callTool(t, server, 'sample', '2024-11-05')
  const sampleRequest = await nextRequest(t, sample.call, '2024-11-05')
  await answer(t, server, sampleRequest, sampled('old'), '2024-11-05')
  t.strictSame((await final(t, sample.call, sample.id, '2024-11-05')).result, textResult('model said {"type":"text","text":"old"}'))

  // Before a request existed in the protocol, asking fails at once, without sending anything.
  for (const [tool, version, message] of [['greet', '2025-03-26', /needs protocol version 2025-06-18/], ['url', '2025-06-18', /URL mode needs protocol version 2025-11-25/]] as const) {
    const early = await callTool(t, server, tool, version)
    t.match(early.call.contentType, /^application\/json/, 'a plain JSON answer: nothing was streamed')
    const reply = await early.call.next()
    t.strictSame(responseProblems(version, reply, 'tools/call'), [])
    t.match(reply, { id: early.id, error: { code: -32600, message } })
  }
})

t.test('the client answers with an error: the handler gets it, or the call fails with it', async (t) => {
  const server = await serve(t)
  const refused = { code: -1, message: 'User rejected the request' }
  const careful = await callTool(t, server, 'careful')
  const request = await nextRequest(t, careful.call)
  t.equal((await httpPost(t, server.url, { jsonrpc: '2.0', id: request.id, error: refused }, legacyHeaders(LATEST))).status, 202)
  t.match((await final(t, careful.call, careful.id)).result, { isError: true, content: [{ text: /could not ask: The client answered elicitation\/create with an error: User rejected/ }] })
  t.match(server.probe.seen[0], { code: -1 })

  const greet = await callTool(t, server, 'greet')
  const second = await nextRequest(t, greet.call)
  await httpPost(t, server.url, { jsonrpc: '2.0', id: second.id, error: refused }, legacyHeaders(LATEST))
  t.match((await final(t, greet.call, greet.id)).error, { code: -1, message: /User rejected the request/ })

  // A result that is not the expected shape is rejected as invalid params.
  const shape = await callTool(t, server, 'greet')
  const third = await nextRequest(t, shape.call)
  t.not(specProblems(LATEST, 'ElicitResult', { action: 'maybe' }).length, 0, 'an invalid ElicitResult, on purpose')
  await httpPost(t, server.url, { jsonrpc: '2.0', id: third.id, result: { action: 'maybe' } }, legacyHeaders(LATEST))
  t.match((await final(t, shape.call, shape.id)).error, { code: -32602, message: /not an ElicitResult/ })
})

t.test('no answer in time: the call fails with -32001', async (t) => {
  const server = await serve(t, { limits: { clientRequestTimeoutMs: 100 } })
  const started = Date.now()
  const { call, id } = await callTool(t, server, 'greet')
  const request = await nextRequest(t, call)
  t.match((await final(t, call, id)).error, { code: -32001, message: /did not answer elicitation\/create within 100 ms/ })
  t.ok(Date.now() - started < 3000, 'the timeout, not a later one, ended it')
  const late = await httpPost(t, server.url, { jsonrpc: '2.0', id: request.id, result: accept({ name: 'late' }) }, legacyHeaders(LATEST))
  t.equal(late.status, 202, 'a late answer is acknowledged and ignored')
})

t.test('an answer with an unknown id is acknowledged and changes nothing', async (t) => {
  const server = await serve(t)
  const { call, id } = await callTool(t, server, 'greet')
  const request = await nextRequest(t, call)
  for (const stray of [{ id: 'not-a-pending-id', result: accept({ name: 'Eve' }) }, { id: 7, result: {} }, { id: request.id.toUpperCase(), error: { code: 1, message: 'x' } }]) {
    t.equal((await httpPost(t, server.url, { jsonrpc: '2.0', ...stray }, legacyHeaders(LATEST))).status, 202)
  }
  await answer(t, server, request, accept({ name: 'Ada' }))
  t.strictSame((await final(t, call, id)).result, textResult('Hello, Ada'), 'the real answer still counts')
})

t.test('answers must reach the process that asked: another instance does not know the id', async (t) => {
  const a = await serve(t)
  const b = await serve(t)
  const { call, id } = await callTool(t, a, 'greet')
  const request = await nextRequest(t, call)
  t.equal((await httpPost(t, b.url, { jsonrpc: '2.0', id: request.id, result: accept({ name: 'Eve' }) }, legacyHeaders(LATEST))).status, 202)
  await answer(t, a, request, accept({ name: 'Ada' }))
  t.strictSame((await final(t, call, id)).result, textResult('Hello, Ada'))
})

t.test('a client that goes away abandons its pending requests', async (t) => {
  const server = await serve(t)
  const { call } = await callTool(t, server, 'careful')
  const request = await nextRequest(t, call)
  call.destroy()
  for (let i = 0; i < 100 && server.probe.seen.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  t.match(server.probe.seen[0], { code: -32603, message: /closed the request before answering/ }, 'the handler is told at once')
  t.equal((await httpPost(t, server.url, { jsonrpc: '2.0', id: request.id, result: accept({ name: 'late' }) }, legacyHeaders(LATEST))).status, 202)
})

t.test('a request that does not accept SSE cannot carry a server request', async (t) => {
  const server = await serve(t)
  const { call, id } = await callTool(t, server, 'greet', LATEST, 'application/json')
  t.match(call.contentType, /^application\/json/)
  const reply = await call.next()
  t.strictSame(responseProblems(LATEST, reply, 'tools/call'), [])
  t.match(reply, { id, error: { code: -32603, message: /Cannot send elicitation\/create: the request does not accept a text\/event-stream response/ } })
})

t.test('app.close() answers waiting calls at once instead of leaving them to time out', async (t) => {
  const server = await serve(t, { limits: { clientRequestTimeoutMs: 60_000 } })
  const { call, id } = await callTool(t, server, 'greet')
  const request = await nextRequest(t, call)
  const started = Date.now()
  await server.app.close()
  t.ok(Date.now() - started < 3000, `close did not wait for the client (${Date.now() - started} ms)`)
  t.match((await final(t, call, id)).error, { code: -32001, message: /server is closing/ })
  t.type(request.id, 'string')
})

t.test('handlers that cannot ask, and hand-built input_required results, are internal errors', async (t) => {
  const server = await serve(t)
  for (const [method, params] of [['completion/complete', { ref: { type: 'ref/prompt', name: 'ask' }, argument: { name: 'a', value: '' } }], ['tools/call', { name: 'manual', arguments: {} }]] as const) {
    const call = await openCall(server.url, { jsonrpc: '2.0', id: 5, method, params }, legacyHeaders(LATEST))
    const reply = await call.next()
    t.strictSame(responseProblems(LATEST, reply, method), [])
    t.strictSame(reply, { jsonrpc: '2.0', id: 5, error: { code: -32603, message: 'Internal error' } })
  }
})
