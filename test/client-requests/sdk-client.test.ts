/**
 * The official SDK client (@modelcontextprotocol/client 2.4.0) with request
 * handlers for elicitation, sampling and roots, against the conformance
 * example: in legacy mode (the server's requests arrive on the response
 * stream and the client POSTs its answers back) and pinned to 2026-07-28
 * (the client fulfils `input_required` rounds with the same handlers and
 * retries). The same tools serve both; `callTool` returns the final result.
 */
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t from 'tap'
import { buildConformanceApp } from '../../examples/conformance-server.js'

const modes: Array<{ name: string, era: 'legacy' | 'modern', options: ClientOptions }> = [
  { name: 'legacy mode (2025-11-25)', era: 'legacy', options: { versionNegotiation: { mode: 'legacy' } } },
  { name: 'pinned to 2026-07-28', era: 'modern', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } }
]

const app = await buildConformanceApp({ era: 'dual' })
const address = await app.listen({ host: '127.0.0.1', port: 0 })
t.teardown(() => app.close())
const url = new URL('/mcp', address)

for (const mode of modes) {
  await t.test(mode.name, async (t) => {
    const asked: Array<{ method: string, params: any }> = []
    const client = new Client({ name: 'client-requests-test', version: '1.0.0' }, {
      ...mode.options,
      capabilities: { elicitation: { form: {} }, sampling: {}, roots: {} }
    })
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push({ method: request.method, params: request.params })
      const properties = Object.keys((request.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {})
      return { action: 'accept', content: Object.fromEntries(properties.map((p) => [p, `${p}-value`])) }
    })
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push({ method: request.method, params: request.params })
      return { role: 'assistant', content: { type: 'text', text: 'sampled text' }, model: 'test-model', stopReason: 'endTurn' }
    })
    client.setRequestHandler('roots/list', async (request) => {
      asked.push({ method: request.method, params: request.params })
      return { roots: [{ uri: 'file:///project', name: 'project' }] }
    })
    t.teardown(() => client.close())
    // What went over the wire: answers POSTed as JSON-RPC responses (legacy), or retries carrying inputResponses (modern).
    const posted: any[] = []
    const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      if (typeof init?.body === 'string') posted.push(JSON.parse(init.body))
      return fetch(input, init)
    }
    await client.connect(new StreamableHTTPClientTransport(url, { fetch: recordingFetch }))
    t.equal(client.getProtocolEra(), mode.era, `lands in the ${mode.era} era`)

    const elicited = await client.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } })
    t.strictSame(elicited.content, [{ type: 'text', text: 'User response: action=accept, content={"username":"username-value","email":"email-value"}' }],
      'the tool result carries the handler\'s answer')
    t.match(asked.shift(), { method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: { required: ['username', 'email'] } } })

    const sampled = await client.callTool({ name: 'test_sampling', arguments: { prompt: 'Hello?' } })
    t.strictSame(sampled.content, [{ type: 'text', text: 'LLM response: sampled text' }])
    t.match(asked.shift(), { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Hello?' } }], maxTokens: 100 } })

    // Two questions in sequence and three kinds at once; in the modern era these are rounds.
    const rounds = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} })
    t.strictSame(rounds.content, [{ type: 'text', text: 'name-value likes color-value' }])
    const all = await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} })
    t.strictSame(all.content, [{ type: 'text', text: 'sampled text name-value (1 roots)' }])
    t.strictSame(asked.map((a) => a.method).sort(), ['elicitation/create', 'elicitation/create', 'elicitation/create', 'roots/list', 'sampling/createMessage'],
      'each question reached the client exactly once')

    const prompt = await client.getPrompt({ name: 'test_input_required_result_prompt' })
    t.strictSame(prompt.messages, [{ role: 'user', content: { type: 'text', text: 'Answer using this context: context-value' } }])

    const answers = posted.filter((m) => m.method === undefined && (m.result !== undefined || m.error !== undefined))
    const retries = posted.filter((m) => m.params?.inputResponses !== undefined)
    if (mode.era === 'legacy') {
      t.equal(answers.length, 8, 'legacy: each of the 8 answers was POSTed back as a JSON-RPC response')
      t.equal(retries.length, 0, 'legacy: no retries')
    } else {
      t.equal(answers.length, 0, 'modern: no server-to-client request was answered')
      // elicitation 1, sampling 1, multi-round 2, multiple-inputs 1, prompt 1
      t.equal(retries.length, 6, 'modern: one retry per round, each with inputResponses')
      t.ok(retries.every((m) => typeof m.params.requestState === 'string'), 'every retry echoes a requestState')
    }
  })
}

await t.test('pinned to 2026-07-28 without declaring elicitation: -32021 before any question', async (t) => {
  const client = new Client({ name: 'client-requests-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: {} })
  t.teardown(() => client.close())
  await client.connect(new StreamableHTTPClientTransport(url))
  const err = await client.callTool({ name: 'test_elicitation', arguments: { message: 'x' } }).then(() => null, (e: unknown) => e)
  t.match(err, { code: -32021 }, 'MissingRequiredClientCapability')
})
