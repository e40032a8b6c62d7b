/**
 * discover(url, options) with an injected fetch: what it sends, how it reads
 * each kind of answer, how it tells the era, and how it fails.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  discover,
  DiscoverAbortError,
  DiscoverError,
  DiscoverHttpError,
  DiscoverInvalidResultError,
  DiscoverJsonRpcError,
  DiscoverNetworkError,
  DiscoverTimeoutError
} from '../../lib/client/index.js'
import { SPEC_DIR } from '../helpers/paths.js'
import { specValidator } from '../helpers/spec-schemas.js'
import { discoverResult, fakeFetch, initializeResult, json, legacyServer, modernServer, sse } from './helpers/fake-fetch.js'
import { serveNode } from './helpers/serve.js'

const URL_ = 'http://mcp.test/mcp'
const META = 'io.modelcontextprotocol/'
const discoverRequest = specValidator('2026-07-28', 'DiscoverRequest')
const initializeRequest = specValidator('2025-11-25', 'InitializeRequest')
const initializedNotification = specValidator('2025-11-25', 'InitializedNotification')

async function failure (p: Promise<unknown>): Promise<unknown> {
  return await p.then(() => { throw new Error('expected a rejection') }, (e: unknown) => e)
}

t.test('the probe is a correct modern server/discover request', async t => {
  const fetch = fakeFetch(modernServer())
  await discover(URL_, {
    fetch,
    headers: { authorization: 'Bearer secret', 'mcp-method': 'wrong', 'x-extra': '1' },
    clientInfo: { name: 'probe', version: '9.9.9' },
    clientCapabilities: { sampling: {} }
  })
  t.equal(fetch.calls.length, 1)
  const [call] = fetch.calls
  t.equal(call?.url, URL_)
  t.equal(call?.method, 'POST')
  const h = call!.headers
  t.equal(h.get('content-type'), 'application/json')
  t.match(h.get('accept'), /application\/json/)
  t.match(h.get('accept'), /text\/event-stream/)
  t.equal(h.get('mcp-protocol-version'), '2026-07-28')
  t.equal(h.get('mcp-method'), 'server/discover', 'protocol headers are not the caller\'s to set')
  t.equal(h.get('authorization'), 'Bearer secret', 'caller headers are sent')
  t.equal(h.get('x-extra'), '1')
  t.ok(discoverRequest(call!.body), `a spec DiscoverRequest: ${JSON.stringify(discoverRequest.errors)}`)
  t.strictSame(call!.body.params._meta, {
    [`${META}protocolVersion`]: '2026-07-28',
    [`${META}clientInfo`]: { name: 'probe', version: '9.9.9' },
    [`${META}clientCapabilities`]: { sampling: {} }
  })
})

t.test('defaults: clientInfo and empty client capabilities', async t => {
  const fetch = fakeFetch(modernServer())
  await discover(URL_, { fetch })
  const meta = fetch.calls[0]!.body.params._meta
  t.equal(typeof meta[`${META}clientInfo`].name, 'string')
  t.equal(typeof meta[`${META}clientInfo`].version, 'string')
  t.strictSame(meta[`${META}clientCapabilities`], {})
})

t.test('a JSON answer: the modern era, the parsed result and when it arrived', async t => {
  const fetch = fakeFetch(modernServer(discoverResult({ instructions: 'Hi', cacheScope: 'public', ttlMs: 5000 })))
  const found = await discover(new URL(URL_), { fetch, now: () => 1234 })
  t.equal(found.era, 'modern')
  t.equal(found.reason, 'discover-result')
  t.equal(found.url, URL_)
  t.equal(found.protocolVersion, '2026-07-28')
  t.same(found.supportedVersions, ['2026-07-28'])
  t.same(found.capabilities, { tools: { listChanged: true } })
  t.same(found.serverInfo, { name: 'fake', version: '1.0.0' })
  t.equal(found.instructions, 'Hi')
  t.equal(found.ttlMs, 5000)
  t.equal(found.cacheScope, 'public')
  t.equal(found.receivedAt, 1234)
  if (found.era === 'modern') t.equal(found.result.raw.instructions, 'Hi')
})

t.test('the spec example response is read as written', async t => {
  const example = JSON.parse(readFileSync(join(SPEC_DIR, '2026-07-28', 'examples', 'DiscoverResultResponse', 'discover-result-response.json'), 'utf8'))
  const fetch = fakeFetch(call => json(200, { ...example, id: call.body.id }))
  const found = await discover(URL_, { fetch })
  t.equal(found.era, 'modern')
  t.same(found.supportedVersions, example.result.supportedVersions)
  t.same(found.capabilities, example.result.capabilities)
  t.equal(found.ttlMs, example.result.ttlMs)
  t.equal(found.cacheScope, example.result.cacheScope)
  t.same(found.serverInfo, example.result._meta[`${META}serverInfo`])
})

t.test('an SSE answer, with a notification before the response', async t => {
  const fetch = fakeFetch(call => sse(200, [
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } },
    { jsonrpc: '2.0', id: call.body.id, result: discoverResult({ ttlMs: 7 }) }
  ]))
  const found = await discover(URL_, { fetch })
  t.equal(found.era, 'modern')
  t.equal(found.ttlMs, 7)
})

t.test('a JSON answer without a content type, or with parameters, is still read', async t => {
  for (const type of [null, 'application/json; charset=utf-8']) {
    const fetch = fakeFetch(call => new Response(JSON.stringify({ jsonrpc: '2.0', id: call.body.id, result: discoverResult() }), {
      status: 200,
      headers: type === null ? {} : { 'content-type': type }
    }))
    t.equal((await discover(URL_, { fetch })).era, 'modern', String(type))
  }
})

t.test('an invalid DiscoverResult is an error, never a fallback to legacy', async t => {
  const bad = [
    discoverResult({ supportedVersions: undefined }),
    discoverResult({ supportedVersions: '2026-07-28' }),
    discoverResult({ capabilities: [] }),
    discoverResult({ resultType: 'input_required' }),
    'not an object'
  ]
  for (const result of bad) {
    const fetch = fakeFetch(call => json(200, { jsonrpc: '2.0', id: call.body.id, result }))
    const err = await failure(discover(URL_, { fetch }))
    t.ok(err instanceof DiscoverInvalidResultError, JSON.stringify(result))
    if (err instanceof DiscoverInvalidResultError) {
      t.equal(err.kind, 'invalid-result')
      t.equal(err.reason, 'invalid_discover_result')
      t.same(err.result, JSON.parse(JSON.stringify(result)), 'the result as received')
    }
    t.equal(fetch.calls.length, 1, 'no initialize was tried')
  }
})

t.test('-32022: retried once with a supported version, in header and _meta', async t => {
  const fetch = fakeFetch((call, i) => i === 0
    ? json(400, { jsonrpc: '2.0', id: call.body.id, error: { code: -32022, message: 'Unsupported', data: { supported: ['2026-07-28'], requested: '2099-01-01' } } })
    : modernServer()(call, i))
  const found = await discover(URL_, { fetch, protocolVersion: '2099-01-01' })
  t.equal(found.era, 'modern')
  t.equal(found.reason, 'discover-result-after-retry')
  t.equal(found.protocolVersion, '2026-07-28')
  t.equal(fetch.calls.length, 2)
  t.equal(fetch.calls[0]!.headers.get('mcp-protocol-version'), '2099-01-01')
  t.equal(fetch.calls[1]!.headers.get('mcp-protocol-version'), '2026-07-28')
  t.equal(fetch.calls[1]!.body.params._meta[`${META}protocolVersion`], '2026-07-28')
  t.not(fetch.calls[0]!.body.id, fetch.calls[1]!.body.id, 'a fresh request id')
})

t.test('-32022 again after the retry: a modern JSON-RPC error, no loop', async t => {
  const fetch = fakeFetch(call => json(400, { jsonrpc: '2.0', id: call.body.id, error: { code: -32022, message: 'Unsupported', data: { supported: ['2026-07-28'], requested: 'x' } } }))
  const err = await failure(discover(URL_, { fetch, protocolVersion: '2099-01-01' }))
  t.ok(err instanceof DiscoverJsonRpcError)
  if (err instanceof DiscoverJsonRpcError) {
    t.equal(err.code, -32022)
    t.equal(err.era, 'modern')
  }
  t.equal(fetch.calls.length, 2)
})

t.test('-32022 with nothing this client speaks: reported with its data', async t => {
  const data = { supported: ['2031-01-01'], requested: '2026-07-28' }
  const fetch = fakeFetch(call => json(400, { jsonrpc: '2.0', id: call.body.id, error: { code: -32022, message: 'Unsupported', data } }))
  const err = await failure(discover(URL_, { fetch }))
  t.ok(err instanceof DiscoverJsonRpcError)
  if (err instanceof DiscoverJsonRpcError) {
    t.same(err.data, data)
    t.equal(err.era, 'modern')
    t.equal(err.status, 400)
  }
  t.equal(fetch.calls.length, 1)
})

t.test('recognized modern errors are reported and never trigger initialize', async t => {
  for (const [status, code] of [[400, -32020], [400, -32021], [400, -32602], [404, -32601]] as const) {
    const fetch = fakeFetch(call => json(status, { jsonrpc: '2.0', id: call.body.id, error: { code, message: 'no', data: { why: 'test' } } }))
    const err = await failure(discover(URL_, { fetch }))
    t.ok(err instanceof DiscoverJsonRpcError, `${code}`)
    if (err instanceof DiscoverJsonRpcError) {
      t.equal(err.kind, 'json-rpc')
      t.equal(err.code, code)
      t.equal(err.status, status)
      t.same(err.data, { why: 'test' })
      t.equal(err.era, 'modern')
      t.equal(err.method, 'server/discover')
    }
    t.equal(fetch.calls.length, 1, `${code}: one request`)
  }
})

t.test('legacy: a 4xx without a modern error falls back to initialize', async t => {
  const probes: Array<[string, () => Response, string]> = [
    ['404 empty', () => new Response(null, { status: 404 }), 'http-status'],
    ['405 text', () => new Response('Method Not Allowed', { status: 405 }), 'http-status'],
    ['400 HTML', () => new Response('<html>bad</html>', { status: 400, headers: { 'content-type': 'text/html' } }), 'http-status'],
    ['400 -32000', () => json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }), 'non-modern-error'],
    ['200 -32601', () => json(200, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } }), 'non-modern-error']
  ]
  for (const [name, probe, reason] of probes) {
    const fetch = fakeFetch(legacyServer(probe, initializeResult({ instructions: 'Legacy hi' })))
    const found = await discover(URL_, { fetch, clientInfo: { name: 'c', version: '1' }, clientCapabilities: { roots: {} }, now: () => 42 })
    t.equal(found.era, 'legacy', name)
    if (found.era !== 'legacy') continue
    t.equal(found.reason, reason, `${name}: reason`)
    t.equal(found.protocolVersion, '2025-11-25')
    t.same(found.supportedVersions, ['2025-11-25'])
    t.same(found.capabilities, { tools: {}, logging: {} })
    t.same(found.serverInfo, { name: 'legacy-fake', version: '0.9.0' })
    t.equal(found.instructions, 'Legacy hi')
    t.equal(found.ttlMs, 0)
    t.equal(found.cacheScope, 'private')
    t.equal(found.receivedAt, 42)
    t.type(found.detail, 'string')

    t.equal(fetch.calls.length, 3, `${name}: probe, initialize, initialized`)
    const init = fetch.calls[1]!
    t.ok(initializeRequest(init.body), `${name}: a spec InitializeRequest`)
    t.same(init.body.params, { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'c', version: '1' } })
    t.equal(init.headers.get('mcp-protocol-version'), null, 'no version header on initialize')
    t.equal(init.headers.get('mcp-method'), null, 'no modern headers on a legacy request')
    t.match(init.headers.get('accept'), /text\/event-stream/)
    const note = fetch.calls[2]!
    t.ok(initializedNotification(note.body), `${name}: a spec InitializedNotification`)
    t.equal(note.headers.get('mcp-protocol-version'), '2025-11-25')
  }
})

t.test('legacy: caller headers go with every request; a session is closed', async t => {
  const fetch = fakeFetch(legacyServer(() => new Response(null, { status: 400 }), initializeResult({ protocolVersion: '2025-06-18' }), { 'mcp-session-id': 'sess-1' }))
  const found = await discover(URL_, { fetch, headers: { authorization: 'Bearer t' } })
  t.equal(found.protocolVersion, '2025-06-18', 'the version the server chose')
  t.same(fetch.calls.map(c => c.body?.method ?? c.method), ['server/discover', 'initialize', 'notifications/initialized', 'DELETE'])
  for (const c of fetch.calls) t.equal(c.headers.get('authorization'), 'Bearer t')
  t.equal(fetch.calls[2]!.headers.get('mcp-session-id'), 'sess-1')
  t.equal(fetch.calls[3]!.headers.get('mcp-session-id'), 'sess-1')
  t.equal(fetch.calls[2]!.headers.get('mcp-protocol-version'), '2025-06-18')
})

t.test('legacy: an SSE initialize answer', async t => {
  const fetch = fakeFetch(call => {
    if (call.body?.method === 'server/discover') return new Response(null, { status: 404 })
    if (call.body?.method === 'initialize') return sse(200, [{ jsonrpc: '2.0', id: call.body.id, result: initializeResult() }])
    return new Response(null, { status: 202 })
  })
  const found = await discover(URL_, { fetch })
  t.equal(found.era, 'legacy')
  t.same(found.serverInfo, { name: 'legacy-fake', version: '0.9.0' })
})

t.test('legacy: -32022 naming only legacy versions initializes with the first we speak', async t => {
  const fetch = fakeFetch(legacyServer(call => json(400, { jsonrpc: '2.0', id: call.body.id, error: { code: -32022, message: 'x', data: { supported: ['2025-06-18'], requested: '2026-07-28' } } }), initializeResult({ protocolVersion: '2025-06-18' })))
  const found = await discover(URL_, { fetch })
  t.equal(found.era, 'legacy')
  t.equal(found.reason, 'legacy-version-offered')
  t.equal(fetch.calls[1]!.body.params.protocolVersion, '2025-06-18')
  if (found.era === 'legacy') t.same(found.probe, { status: 400, errorCode: -32022 })
})

t.test('legacy: a notification the server refuses does not undo the handshake', async t => {
  const fetch = fakeFetch(call => {
    if (call.body?.method === 'server/discover') return new Response(null, { status: 404 })
    if (call.body?.method === 'initialize') return json(200, { jsonrpc: '2.0', id: call.body.id, result: initializeResult() })
    throw new TypeError('connection reset')
  })
  t.equal((await discover(URL_, { fetch })).era, 'legacy')
})

t.test('legacy: initialize failures are typed', async t => {
  const cases: Array<[string, (call: any) => Response, (err: unknown) => void]> = [
    ['JSON-RPC error', call => json(400, { jsonrpc: '2.0', id: call.body.id, error: { code: -32602, message: 'bad version' } }), err => {
      t.ok(err instanceof DiscoverJsonRpcError)
      if (err instanceof DiscoverJsonRpcError) {
        t.equal(err.method, 'initialize')
        t.equal(err.era, 'legacy')
        t.equal(err.code, -32602)
      }
    }],
    ['HTTP 500', () => new Response('boom', { status: 500 }), err => {
      t.ok(err instanceof DiscoverHttpError)
      if (err instanceof DiscoverHttpError) {
        t.equal(err.method, 'initialize')
        t.equal(err.status, 500)
        t.equal(err.body, 'boom')
      }
    }],
    ['invalid result', call => json(200, { jsonrpc: '2.0', id: call.body.id, result: { capabilities: {} } }), err => {
      t.ok(err instanceof DiscoverInvalidResultError)
      if (err instanceof DiscoverInvalidResultError) t.equal(err.reason, 'invalid_initialize_result')
    }],
    ['capabilities not an object', call => json(200, { jsonrpc: '2.0', id: call.body.id, result: { protocolVersion: '2025-11-25', capabilities: 'all' } }), err => {
      t.ok(err instanceof DiscoverInvalidResultError)
    }]
  ]
  for (const [name, answer, check] of cases) {
    const fetch = fakeFetch(call => call.body?.method === 'server/discover' ? new Response(null, { status: 404 }) : answer(call))
    const err = await failure(discover(URL_, { fetch }))
    t.ok(err instanceof DiscoverError, name)
    check(err)
  }
})

t.test('HTTP failures without a JSON-RPC body', async t => {
  const cases: Array<[string, () => Response, number]> = [
    ['500', () => new Response('internal', { status: 500 }), 500],
    ['503 JSON, not JSON-RPC', () => json(503, { error: 'busy' }), 503],
    ['200 HTML', () => new Response('<html></html>', { status: 200, headers: { 'content-type': 'text/html' } }), 200],
    ['202 empty', () => new Response(null, { status: 202 }), 202],
    ['200 SSE that ends without a response', () => new Response(': ping\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } }), 200],
    ['200 JSON-RPC result for another id', () => json(200, { jsonrpc: '2.0', id: 'someone-else', result: discoverResult() }), 200],
    ['200 result without jsonrpc 2.0', () => json(200, { id: 1, result: discoverResult() }), 200]
  ]
  for (const [name, answer, status] of cases) {
    const fetch = fakeFetch(answer)
    const err = await failure(discover(URL_, { fetch }))
    t.ok(err instanceof DiscoverHttpError, name)
    if (err instanceof DiscoverHttpError) {
      t.equal(err.kind, 'http')
      t.equal(err.status, status, `${name}: status`)
      t.equal(err.method, 'server/discover')
      t.equal(err.url, URL_)
    }
    t.equal(fetch.calls.length, 1, `${name}: no fallback`)
  }
})

t.test('a JSON-RPC error on a 5xx is reported with no era', async t => {
  const fetch = fakeFetch(call => json(500, { jsonrpc: '2.0', id: call.body.id, error: { code: -32603, message: 'Internal error' } }))
  const err = await failure(discover(URL_, { fetch }))
  t.ok(err instanceof DiscoverJsonRpcError)
  if (err instanceof DiscoverJsonRpcError) t.equal(err.era, null)
})

t.test('an answer larger than maxResponseBytes is refused', async t => {
  const big = discoverResult({ instructions: 'x'.repeat(10_000) })
  for (const kind of ['json', 'sse'] as const) {
    const fetch = fakeFetch(call => kind === 'json'
      ? json(200, { jsonrpc: '2.0', id: call.body.id, result: big })
      : sse(200, [{ jsonrpc: '2.0', id: call.body.id, result: big }]))
    const err = await failure(discover(URL_, { fetch, maxResponseBytes: 1000 }))
    t.ok(err instanceof DiscoverHttpError, kind)
    t.match((err as Error).message, /larger than 1000 bytes/)
    t.equal((await discover(URL_, { fetch, maxResponseBytes: 100_000 })).era, 'modern', `${kind}: fits a larger bound`)
  }
})

t.test('network failure', async t => {
  const cause = new TypeError('fetch failed')
  const fetch = fakeFetch(() => { throw cause })
  const err = await failure(discover(URL_, { fetch }))
  t.ok(err instanceof DiscoverNetworkError)
  if (err instanceof DiscoverNetworkError) {
    t.equal(err.kind, 'network')
    t.equal(err.cause, cause)
  }
})

t.test('network failure with the real fetch: nothing listens', async t => {
  const server = await serveNode((_req, res) => { res.end() })
  const url = server.url
  await server.close()
  const err = await failure(discover(url, { timeoutMs: 5000 }))
  t.ok(err instanceof DiscoverNetworkError, String(err))
})

t.test('timeout while waiting for headers', async t => {
  const fetch = fakeFetch(async () => await new Promise<Response>(() => {}))
  const started = Date.now()
  const err = await failure(discover(URL_, { fetch, timeoutMs: 50 }))
  t.ok(err instanceof DiscoverTimeoutError)
  if (err instanceof DiscoverTimeoutError) {
    t.equal(err.kind, 'timeout')
    t.equal(err.timeoutMs, 50)
  }
  t.ok(Date.now() - started < 2000, 'did not hang')
})

t.test('timeout while an SSE body stalls (real server, real fetch)', async t => {
  const server = await serveNode((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(': waiting\n\n') // and never answers
  })
  t.teardown(server.close)
  const err = await failure(discover(server.url, { timeoutMs: 200 }))
  t.ok(err instanceof DiscoverTimeoutError, String(err))
})

t.test('timeout spans the legacy fallback too', async t => {
  const fetch = fakeFetch(async call => {
    if (call.body?.method === 'server/discover') return new Response(null, { status: 404 })
    return await new Promise<Response>(() => {})
  })
  const err = await failure(discover(URL_, { fetch, timeoutMs: 80 }))
  t.ok(err instanceof DiscoverTimeoutError)
})

t.test('the caller\'s AbortSignal', async t => {
  const reason = new Error('user left')
  const controller = new AbortController()
  const fetch = fakeFetch(async () => await new Promise<Response>(() => {}))
  const pending = discover(URL_, { fetch, signal: controller.signal })
  setTimeout(() => controller.abort(reason), 10)
  const err = await failure(pending)
  t.ok(err instanceof DiscoverAbortError)
  if (err instanceof DiscoverAbortError) {
    t.equal(err.kind, 'aborted')
    t.equal(err.cause, reason)
  }

  const already = await failure(discover(URL_, { fetch, signal: AbortSignal.abort(reason) }))
  t.ok(already instanceof DiscoverAbortError, 'an already aborted signal')
})

t.test('bad arguments are caller errors', async t => {
  const fetch = fakeFetch(modernServer())
  await t.rejects(discover('not a url', { fetch }), TypeError)
  await t.rejects(discover('ftp://example.com/mcp', { fetch }), TypeError)
  await t.rejects(discover(URL_, { fetch, timeoutMs: 0 }), TypeError)
  await t.rejects(discover(URL_, { fetch, timeoutMs: Infinity }), TypeError)
  await t.rejects(discover(URL_, { fetch, timeoutMs: NaN }), TypeError)
  await t.rejects(discover(URL_, { fetch, headers: { 'bad header': 'x' } }), TypeError)
  t.equal(fetch.calls.length, 0)
})

t.test('property: whatever the probe gets back, discover resolves or rejects with a DiscoverError', async t => {
  const { default: fc } = await import('fast-check')
  const codes = fc.oneof(fc.constantFrom(-32022, -32020, -32021, -32602, -32601, -32600, -32700, -32000, -32603), fc.integer())
  const body = fc.oneof(
    fc.jsonValue(),
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.constant('ID'), result: fc.oneof(fc.jsonValue(), fc.constant(discoverResult())) }),
    fc.record({ jsonrpc: fc.constant('2.0'), id: fc.constantFrom('ID', null), error: fc.record({ code: codes, message: fc.string(), data: fc.oneof(fc.jsonValue(), fc.record({ supported: fc.array(fc.constantFrom('2026-07-28', '2025-11-25', '2025-06-18', 'x')), requested: fc.string() })) }) })
  )
  const answer = fc.record({
    status: fc.oneof(fc.constantFrom(200, 202, 400, 401, 404, 405, 500), fc.integer({ min: 200, max: 599 })),
    body,
    type: fc.constantFrom('application/json', 'text/event-stream', 'text/html', null)
  })
  let modern = 0
  let legacy = 0
  await fc.assert(fc.asyncProperty(answer, async a => {
    const fetch = fakeFetch(legacyServer(call => {
      const text = JSON.stringify(a.body).replace('"ID"', JSON.stringify(call.body.id))
      const payload = a.type === 'text/event-stream' ? `data: ${text}\n\n` : text
      return new Response(a.status === 204 || a.status === 205 || a.status === 304 ? null : payload, { status: a.status, headers: a.type === null ? {} : { 'content-type': a.type } })
    }))
    try {
      const found = await discover(URL_, { fetch, timeoutMs: 2000 })
      if (found.era === 'modern') {
        modern++
        if (a.status < 200 || a.status > 299) throw new Error(`modern result on HTTP ${a.status}`)
      } else {
        legacy++
        // Only an explicit -32022 offer of legacy versions is followed whatever the status.
        if (a.status >= 500 && found.reason !== 'legacy-version-offered') throw new Error(`legacy fallback on HTTP ${a.status}`)
        const code = (a.body as any)?.error?.code
        if ([-32020, -32021].includes(code) && (a.type === 'application/json' || a.type === null || a.type === 'text/event-stream')) throw new Error(`legacy fallback on modern error ${code as number}`)
      }
    } catch (err) {
      if (!(err instanceof DiscoverError)) throw err
    }
  }), { numRuns: 400 })
  t.ok(modern > 0 && legacy > 0, `both eras reached (modern ${modern}, legacy ${legacy})`)
})
