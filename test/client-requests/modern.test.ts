/**
 * Client input in the modern era (2026-07-28): multi round-trip requests.
 * Every response is checked against the 2026-07-28 schema (InputRequiredResult
 * for `input_required`), and every request this test sends against
 * CallToolRequest / GetPromptRequest / ReadResourceRequest.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { buildApp, captureLogs, toolsModule } from '../helpers/mcp-fixtures.js'
import { assertError, mcpClient, META_SERVER_INFO, modernHeaders, modernMeta, type McpReply } from '../helpers/mcp-inject.js'
import { specProblems } from '../helpers/spec-schemas.js'
import { inputRequired } from '../../lib/index.js'
import {
  accept, ALL_CAPABILITIES, ASK_COLOR, ASK_NAME, clientRequestModule, type Probe, ROOTS, SAMPLE, sampled
} from './fixtures.js'

const MODERN = '2026-07-28'
const SERVER_INFO_META = { [META_SERVER_INFO]: { name: 'fixture-server', version: '1.2.3' } }
const REQUEST_DEFS: Record<string, string> = { 'tools/call': 'CallToolRequest', 'prompts/get': 'GetPromptRequest', 'resources/read': 'ReadResourceRequest' }

interface Session {
  app: FastifyInstance
  probe: Probe
  send: (method: string, params: Record<string, unknown>, capabilities?: Record<string, unknown>) => Promise<McpReply>
  call: (name: string, extra?: Record<string, unknown>, capabilities?: Record<string, unknown>) => Promise<McpReply>
  /** `call` for a request that breaks the schema on purpose (no request check). */
  callInvalid: (name: string, extra: Record<string, unknown>) => Promise<McpReply>
}

let nextId = 1

async function session (t: Test, options: Record<string, unknown> = {}): Promise<Session> {
  const probe: Probe = { seen: [], runs: {}, question: 'Q1' }
  const app = await buildApp(t, { server: clientRequestModule(probe), ...options })
  const mcp = mcpClient(t, app)
  const send = async (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = ALL_CAPABILITIES, valid = true): Promise<McpReply> => {
    const id = nextId++
    const message = { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(capabilities) } }
    const problems = specProblems(MODERN, REQUEST_DEFS[method] ?? 'JSONRPCRequest', message)
    if (valid) t.strictSame(problems, [], `the ${method} request is valid`)
    else t.not(problems.length, 0, `the ${method} request is invalid on purpose`)
    return mcp.modern(method, params, { id, capabilities })
  }
  const call = (name: string, extra: Record<string, unknown> = {}, capabilities?: Record<string, unknown>) =>
    send('tools/call', { name, arguments: {}, ...extra }, capabilities)
  const callInvalid = (name: string, extra: Record<string, unknown>) => send('tools/call', { name, arguments: {}, ...extra }, ALL_CAPABILITIES, false)
  return { app, probe, send, call, callInvalid }
}

/** Asserts an input_required result asking exactly `inputRequests`; returns its requestState. */
function assertInputRequired (t: Test, reply: McpReply, inputRequests: Record<string, unknown>): string {
  t.equal(reply.status, 200, 'HTTP 200')
  const result = reply.json?.result
  t.strictSame(Object.keys(result ?? {}).sort(), ['_meta', 'inputRequests', 'requestState', 'resultType'],
    'resultType, inputRequests, requestState and _meta; no cache hints')
  t.equal(result?.resultType, 'input_required')
  t.strictSame(result?.inputRequests, inputRequests, 'asks exactly what the handler needs')
  t.strictSame(result?._meta, SERVER_INFO_META)
  for (const [key, request] of Object.entries(result?.inputRequests ?? {})) {
    t.strictSame(specProblems(MODERN, 'InputRequest', request), [], `inputRequests.${key} is a valid InputRequest`)
  }
  t.type(result?.requestState, 'string')
  return result?.requestState as string
}

function assertText (t: Test, reply: McpReply, text: string): void {
  t.equal(reply.status, 200, 'HTTP 200')
  t.strictSame(reply.json?.result, { content: [{ type: 'text', text }], resultType: 'complete', _meta: SERVER_INFO_META })
}

const elicit = (params: unknown) => ({ method: 'elicitation/create', params })
const modernHeadersFor = (name: string) => modernHeaders('tools/call', { name })

t.test('one question: input_required, then the retry with the answer completes', async (t) => {
  const s = await session(t)
  const state = assertInputRequired(t, await s.call('greet'), { name: elicit(ASK_NAME) })
  const responses = { name: accept({ name: 'Ada' }) }
  t.strictSame(specProblems(MODERN, 'InputResponses', responses), [], 'the answers are valid InputResponses')
  assertText(t, await s.call('greet', { inputResponses: responses, requestState: state }), 'Hello, Ada')
  t.equal(s.probe.runs.greet, 2, 'the handler ran once per attempt')
})

t.test('several questions in one round; a partial answer re-asks only what is missing', async (t) => {
  const s = await session(t)
  const all = { 'elicitation-1': elicit(ASK_NAME), 'sampling-1': { method: 'sampling/createMessage', params: SAMPLE }, 'roots-1': { method: 'roots/list', params: {} } }
  const s1 = assertInputRequired(t, await s.call('everything'), all)
  const s2 = assertInputRequired(t, await s.call('everything', { inputResponses: { 'elicitation-1': accept({ name: 'Ada' }) }, requestState: s1 }),
    { 'sampling-1': all['sampling-1'], 'roots-1': all['roots-1'] })
  t.not(s2, s1, 'the state changed: it now holds the first answer')
  assertText(t, await s.call('everything', { inputResponses: { 'sampling-1': sampled('hi'), 'roots-1': ROOTS }, requestState: s2 }),
    'Ada / {"type":"text","text":"hi"} / file:///work')
})

t.test('several rounds: the state carries earlier answers, which a later round cannot replace', async (t) => {
  const s = await session(t)
  const s1 = assertInputRequired(t, await s.call('rounds'), { r1: elicit(ASK_NAME) })
  const s2 = assertInputRequired(t, await s.call('rounds', { inputResponses: { r1: accept({ name: 'Ada' }) }, requestState: s1 }), { r2: elicit(ASK_COLOR) })
  const s3 = assertInputRequired(t, await s.call('rounds', { inputResponses: { r2: accept({ color: 'blue' }), r1: accept({ name: 'Eve' }) }, requestState: s2 }),
    { r3: { method: 'roots/list', params: {} } })
  t.equal(new Set([s1, s2, s3]).size, 3, 'a new state every round')
  assertText(t, await s.call('rounds', { inputResponses: { r3: ROOTS }, requestState: s3 }), 'Ada likes blue in 1 roots')
  t.equal(s.probe.runs.rounds, 4)
})

t.test('default keys follow the call order per kind', async (t) => {
  const s = await session(t)
  const s1 = assertInputRequired(t, await s.call('twice'), { 'elicitation-1': elicit(ASK_NAME) })
  const s2 = assertInputRequired(t, await s.call('twice', { inputResponses: { 'elicitation-1': accept({ name: 'Ada' }) }, requestState: s1 }),
    { 'elicitation-2': elicit(ASK_COLOR) })
  assertText(t, await s.call('twice', { inputResponses: { 'elicitation-2': accept({ color: 'red' }) }, requestState: s2 }), 'Ada+red')
})

t.test('an answer counts only for the question it answers', async (t) => {
  const s = await session(t)
  const s1 = assertInputRequired(t, await s.call('changing'), { q: elicit({ message: 'Q1', requestedSchema: ASK_NAME.requestedSchema }) })
  s.probe.question = 'Q2'
  // The server now asks something else under the same key: the old answer is not taken for it.
  assertInputRequired(t, await s.call('changing', { inputResponses: { q: accept({ name: 'Ada' }) }, requestState: s1 }),
    { q: elicit({ message: 'Q2', requestedSchema: ASK_NAME.requestedSchema }) })
})

t.test('a first request may answer up front (no requestState); unknown keys are ignored, under a state too', async (t) => {
  const s = await session(t)
  assertText(t, await s.call('greet', { inputResponses: { name: accept({ name: 'Bo' }), extra: accept({ x: 1 }), other: { action: 'accept' } } }), 'Hello, Bo')
  assertInputRequired(t, await s.call('greet', { inputResponses: { wrong_key: accept({ name: 'Bo' }) } }), { name: elicit(ASK_NAME) })
  const state = assertInputRequired(t, await s.call('greet'), { name: elicit(ASK_NAME) })
  assertText(t, await s.call('greet', { inputResponses: { name: accept({ name: 'Bo' }), extra: accept({ x: 1 }), other: { action: 'accept' } }, requestState: state }), 'Hello, Bo')
  assertInputRequired(t, await s.call('greet', { inputResponses: { wrong_key: accept({ name: 'Bo' }) }, requestState: state }), { name: elicit(ASK_NAME) })
})

t.test('prompts/get and resources/read ask too; input_required carries no cache hints', async (t) => {
  const s = await session(t, { cacheHints: { results: { ttlMs: 60_000, cacheScope: 'public' } } })
  const p1 = assertInputRequired(t, await s.send('prompts/get', { name: 'ask' }), { who: elicit(ASK_NAME) })
  const prompt = await s.send('prompts/get', { name: 'ask', inputResponses: { who: accept({ name: 'Ada' }) }, requestState: p1 })
  t.strictSame(prompt.json.result.messages, [{ role: 'user', content: { type: 'text', text: 'Write to Ada' } }])
  const r1 = assertInputRequired(t, await s.send('resources/read', { uri: 'file:///secret' }), { roots: { method: 'roots/list', params: {} } })
  const read = await s.send('resources/read', { uri: 'file:///secret', inputResponses: { roots: ROOTS }, requestState: r1 })
  t.match(read.json.result, { contents: [{ text: 'inside 1 roots' }], resultType: 'complete', ttlMs: 60_000, cacheScope: 'public' },
    'the complete result gets its hints')
})

t.test('a requestState that fails verification is rejected with invalid params', async (t) => {
  const secret = 'a'.repeat(32)
  const s = await session(t, { requestState: { secret } })
  const other = await session(t, { requestState: { secret: 'b'.repeat(32) } })
  const answers = { name: accept({ name: 'Ada' }) }
  const state = assertInputRequired(t, await s.call('greet'), { name: elicit(ASK_NAME) })
  const foreign = assertInputRequired(t, await other.call('greet'), { name: elicit(ASK_NAME) })
  const flipped = state.slice(0, 20) + (state[20] === 'A' ? 'B' : 'A') + state.slice(21)
  const cases: Array<[string, unknown, RegExp]> = [
    ['suffix appended', state + '-TAMPERED', /failed verification/],
    ['payload altered', flipped, /failed verification/],
    ['signed by another endpoint', foreign, /failed verification/],
    ['not a token', 'hello', /failed verification/],
    ['not a string', 42, /must be a string/]
  ]
  for (const [name, requestState, message] of cases) {
    const extra = { inputResponses: answers, requestState }
    const reply = typeof requestState === 'string' ? await s.call('greet', extra) : await s.callInvalid('greet', extra)
    assertError(t, reply, { status: 400, code: -32602, id: nextId - 1, message })
    t.comment(`rejected: ${name}`)
  }
  // Genuine, but for another request: other arguments, another tool, another method.
  assertError(t, await s.call('greet', { arguments: { a: 1 }, inputResponses: answers, requestState: state }),
    { status: 400, code: -32602, id: nextId - 1, message: /different request/ })
  assertError(t, await s.call('twice', { inputResponses: answers, requestState: state }), { status: 400, code: -32602, id: nextId - 1, message: /different request/ })
  assertError(t, await s.send('prompts/get', { name: 'greet', inputResponses: answers, requestState: state }),
    { status: 400, code: -32602, id: nextId - 1, message: /different request/ })
  t.equal(s.probe.runs.greet, 1, 'no rejected retry reached the handler')
  assertText(t, await s.call('greet', { inputResponses: answers, requestState: state }), 'Hello, Ada')
})

t.test('an expired requestState is rejected', async (t) => {
  const s = await session(t, { requestState: { ttlMs: 1 } })
  const state = assertInputRequired(t, await s.call('greet'), { name: elicit(ASK_NAME) })
  await sleep(5)
  assertError(t, await s.call('greet', { inputResponses: { name: accept({ name: 'Ada' }) }, requestState: state }),
    { status: 400, code: -32602, id: nextId - 1, message: /expired/ })
})

t.test('malformed inputResponses are invalid params', async (t) => {
  const s = await session(t)
  const cases: Array<[unknown, RegExp]> = [
    [null, /"inputResponses" must be an object/],
    [[accept({})], /"inputResponses" must be an object/],
    [{ name: 12345 }, /inputResponses\["name"\] must be a result object/],
    [{ name: { action: 'maybe' } }, /inputResponses\["name"\] is not an ElicitResult/],
    [{ name: { action: 'accept', content: 'Ada' } }, /is not an ElicitResult/]
  ]
  // Answers are read only under a state that asked their question.
  const asked = assertInputRequired(t, await s.call('greet'), { name: elicit(ASK_NAME) })
  for (const [inputResponses, message] of cases) {
    const params = { name: 'greet', arguments: {}, inputResponses, requestState: asked }
    assertError(t, await mcpClient(t, s.app).modern('tools/call', params, { id: 9, capabilities: ALL_CAPABILITIES }),
      { status: 400, code: -32602, id: 9, message })
  }
  const s1 = assertInputRequired(t, await s.call('everything'), {
    'elicitation-1': elicit(ASK_NAME), 'sampling-1': { method: 'sampling/createMessage', params: SAMPLE }, 'roots-1': { method: 'roots/list', params: {} }
  })
  for (const [key, bad] of [['sampling-1', { role: 'robot', content: {}, model: 'm' }], ['roots-1', { roots: [{ name: 'no uri' }] }]] as const) {
    assertError(t, await s.callInvalid('everything', { inputResponses: { 'elicitation-1': accept({ name: 'A' }), [key]: bad }, requestState: s1 }),
      { status: 400, code: -32602, id: nextId - 1, message: /is not a (CreateMessageResult|ListRootsResult)/ })
  }
})

t.test('instances sharing the secret serve each other\'s retries; a rotated list still verifies', async (t) => {
  const oldKey = Buffer.alloc(32, 1)
  const newKey = 'n'.repeat(40)
  const a = await session(t, { requestState: { secret: oldKey } })
  const b = await session(t, { requestState: { secret: oldKey } })
  const rotated = await session(t, { requestState: { secret: [newKey, oldKey] } })
  const answers = { name: accept({ name: 'Ada' }) }
  const state = assertInputRequired(t, await a.call('greet'), { name: elicit(ASK_NAME) })
  assertText(t, await b.call('greet', { inputResponses: answers, requestState: state }), 'Hello, Ada')
  assertText(t, await rotated.call('greet', { inputResponses: answers, requestState: state }), 'Hello, Ada')
  const fresh = assertInputRequired(t, await rotated.call('greet'), { name: elicit(ASK_NAME) })
  assertError(t, await a.call('greet', { inputResponses: answers, requestState: fresh }), { status: 400, code: -32602, id: nextId - 1 })
})

t.test('asking for what the client did not declare: -32021 naming the capability', async (t) => {
  const s = await session(t)
  const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>?]> = [
    ['greet', {}, { elicitation: {} }],
    ['greet', { elicitation: { url: {} } }, { elicitation: { form: {} } }],
    ['url', { elicitation: {} }, { elicitation: { url: {} } }],
    ['url', {}, { elicitation: { url: {} } }],
    ['sample', { elicitation: {} }, { sampling: {} }],
    ['sample', { sampling: {} }, { sampling: { tools: {} } }, { tools: true }],
    ['roots', { sampling: {} }, { roots: {} }]
  ]
  for (const [name, declared, required, args] of cases) {
    assertError(t, await s.call(name, { arguments: args ?? {} }, declared),
      { status: 400, code: -32021, id: nextId - 1, data: { requiredCapabilities: required } })
  }
  assertInputRequired(t, await s.call('url', {}, { elicitation: { url: {} } }),
    { 'elicitation-1': elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' }) })
  assertInputRequired(t, await s.call('greet', {}, { elicitation: { form: {}, url: {} } }), { name: elicit(ASK_NAME) })
  assertInputRequired(t, await s.call('sample', { arguments: { tools: true } }, { sampling: { tools: {} } }), {
    'sampling-1': { method: 'sampling/createMessage', params: { ...SAMPLE, tools: [{ name: 't', inputSchema: { type: 'object' } }] } }
  })
  t.equal(s.probe.runs.greet, 3, 'the handler ran; the endpoint refused what it asked')
})

t.test('a handler that catches the failure answers with its own result', async (t) => {
  const s = await session(t)
  const reply = await s.call('careful', {}, {})
  t.match(reply.json.result, { isError: true, content: [{ text: /could not ask: Missing required client capability/ }] })
  t.match(s.probe.seen[0], { code: -32021 })
  // Swallowing the input-required signal forgoes the round: the handler's result goes out.
  t.match((await s.call('careful')).json.result, { resultType: 'complete', isError: true, content: [{ text: /could not ask: input required/ }] })
})

t.test('handler bugs are internal errors: asking from another method, a key used twice, a bad hand-built result', async (t) => {
  const { logger, records } = captureLogs('error')
  const probe: Probe = { seen: [], runs: {}, question: 'Q1' }
  const app = await buildApp(t, { server: clientRequestModule(probe) }, { logger })
  const mcp = mcpClient(t, app)
  const complete = await mcp.modern('completion/complete', { ref: { type: 'ref/prompt', name: 'ask' }, argument: { name: 'a', value: '' } }, { id: 1, capabilities: ALL_CAPABILITIES })
  assertError(t, complete, { status: 200, code: -32603, id: 1, message: /^Internal error$/ })
  assertError(t, await mcp.modern('tools/call', { name: 'dupe' }, { id: 2, capabilities: ALL_CAPABILITIES }), { status: 200, code: -32603, id: 2 })
  assertError(t, await mcp.modern('tools/call', { name: 'badManual' }, { id: 3, capabilities: ALL_CAPABILITIES }), { status: 200, code: -32603, id: 3 })
  const messages = records.map((r) => r.err?.message ?? '')
  t.match(messages[0], /only available to tools\/call, prompts\/get and resources\/read handlers \(called while serving completion\/complete/)
  t.match(messages[1], /key "k" is used twice/)
  t.match(messages[2], /inputRequests\["x"\] must be/)
})

t.test('input_required on a method that does not allow it is an internal error', async (t) => {
  const app = await buildApp(t, { server: toolsModule({ listTools: () => inputRequired({ requestState: 'x' }) }) })
  assertError(t, await mcpClient(t, app).modern('tools/list', {}, { id: 1 }), { status: 200, code: -32603, id: 1 })
})

t.test('a hand-built input_required result: the endpoint signs its state and hands it back verified', async (t) => {
  const s = await session(t)
  const r1 = await s.call('manual', { arguments: { tag: 'x' } })
  const state = assertInputRequired(t, r1, { pick: elicit(ASK_NAME) })
  t.notMatch(state, /^step-1/, 'the handler\'s own string is wrapped, not sent as is')
  assertText(t, await s.call('manual', { arguments: { tag: 'x' }, inputResponses: { pick: accept({ name: 'Ada' }) }, requestState: state }),
    'state step-1:x, answer {"pick":{"action":"accept","content":{"name":"Ada"}}}')
  assertError(t, await s.call('manual', { arguments: { tag: 'x' }, requestState: state + 'x' }), { status: 400, code: -32602, id: nextId - 1 })
  assertError(t, await s.call('manualSampling', {}, { elicitation: {} }),
    { status: 400, code: -32021, id: nextId - 1, data: { requiredCapabilities: { sampling: {} } } })
})

t.test('deeply nested params never cause a 5xx', async (t) => {
  const s = await session(t)
  const state = assertInputRequired(t, await s.call('greet'), { name: elicit(ASK_NAME) })
  const depth = 50_000
  const deep = '['.repeat(depth) + ']'.repeat(depth)
  const mcp = mcpClient(t, s.app)
  const meta = JSON.stringify(modernMeta(ALL_CAPABILITIES))
  const headers = modernHeadersFor('greet')
  // With a requestState the endpoint digests the params: refused as invalid.
  const answers = JSON.stringify({ name: accept({ name: 'A' }) })
  const withState = await mcp.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"deep":${deep}},"inputResponses":${answers},"requestState":${JSON.stringify(state)},"_meta":${meta}}}`, headers)
  assertError(t, withState, { status: 400, code: -32602, id: 1, message: /nested too deeply/ })
  // Without one, the handler asks and the endpoint cannot seal such params: invalid params too (issue 11).
  const without = await mcp.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"deep":${deep}},"_meta":${meta}}}`, headers)
  assertError(t, without, { status: 400, code: -32602, id: 2, message: /nested too deeply/ })
})
