/**
 * The client against servers built with the official SDKs: era, versions,
 * capabilities and identity as each server states them.
 */
import t from 'tap'
import { discover, DiscoverCache, DiscoverJsonRpcError } from '../../lib/client/index.js'
import { LATEST_LEGACY_VERSION, MODERN_VERSIONS } from '../../lib/protocol/versions.js'
import { startV1, startV2, V1_INFO, V2_INFO } from './helpers/sdk-peers.js'
import { specValidator } from '../helpers/spec-schemas.js'

const modernCapabilities = specValidator('2026-07-28', 'ServerCapabilities')
const legacyCapabilities = specValidator('2025-11-25', 'ServerCapabilities')
const discoverResult = specValidator('2026-07-28', 'DiscoverResult')
const initializeResult = specValidator('2025-11-25', 'InitializeResult')

for (const mode of ['dual', 'modern'] as const) {
  t.test(`SDK v2 server, ${mode}: modern era from server/discover`, async t => {
    const peer = await startV2({ mode, instructions: 'Use echo.', discoverHint: { ttlMs: 30_000, cacheScope: 'public' }, prompts: true })
    t.teardown(peer.close)
    const found = await discover(peer.url)
    t.equal(found.era, 'modern')
    t.equal(found.reason, 'discover-result')
    t.equal(found.protocolVersion, '2026-07-28')
    t.ok(found.supportedVersions.includes('2026-07-28'), 'advertises 2026-07-28')
    t.ok(found.supportedVersions.every(v => (MODERN_VERSIONS as readonly string[]).includes(v)), `supportedVersions are modern: ${found.supportedVersions.join(', ')}`)
    t.ok(modernCapabilities(found.capabilities), 'capabilities are modern ServerCapabilities')
    t.ok('tools' in found.capabilities, 'tools advertised')
    t.ok('prompts' in found.capabilities, 'prompts advertised')
    t.notOk('resources' in found.capabilities, 'resources not advertised')
    t.same(found.serverInfo, V2_INFO)
    t.equal(found.instructions, 'Use echo.')
    t.equal(found.ttlMs, 30_000)
    t.equal(found.cacheScope, 'public')
    if (found.era === 'modern') t.ok(discoverResult(found.result.raw), 'the raw answer is a spec DiscoverResult')
  })

  t.test(`SDK v2 server, ${mode}: a version it does not serve is retried with one it advertises`, async t => {
    const peer = await startV2({ mode })
    t.teardown(peer.close)
    const found = await discover(peer.url, { protocolVersion: '2099-01-01' })
    t.equal(found.era, 'modern')
    t.equal(found.reason, 'discover-result-after-retry')
    t.equal(found.protocolVersion, '2026-07-28')
    t.equal(found.ttlMs, 0, 'no hint configured: the SDK default ttlMs 0')
    t.equal(found.cacheScope, 'private', 'no hint configured: the SDK default private')
  })
}

t.test('SDK v2 server, modern only: a legacy initialize is what it refuses', async t => {
  // Cross-check of the fixture: this peer really is modern-only.
  const peer = await startV2({ mode: 'modern' })
  t.teardown(peer.close)
  const res = await fetch(peer.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
  })
  t.equal(res.status, 400)
  t.equal(((await res.json()) as { error: { code: number } }).error.code, -32022)
})

t.test('SDK v1 server (stateless Streamable HTTP): legacy era via initialize', async t => {
  const peer = await startV1({ prompts: true })
  t.teardown(peer.close)
  const found = await discover(peer.url, { clientInfo: { name: 'peer-test', version: '1.0.0' } })
  t.equal(found.era, 'legacy')
  if (found.era !== 'legacy') return
  t.equal(found.reason, 'non-modern-error', 'v1 answers the probe with 400 and a non-modern JSON-RPC error')
  t.equal(found.probe.status, 400)
  t.not(found.probe.errorCode, null)
  t.equal(found.protocolVersion, LATEST_LEGACY_VERSION, 'v1 accepts the latest legacy version')
  t.same(found.supportedVersions, [LATEST_LEGACY_VERSION])
  t.ok(legacyCapabilities(found.capabilities), 'capabilities are legacy ServerCapabilities')
  t.ok('tools' in found.capabilities)
  t.ok('prompts' in found.capabilities)
  t.same(found.serverInfo, V1_INFO)
  t.equal(found.ttlMs, 0)
  t.equal(found.cacheScope, 'private')
  t.ok(initializeResult(found.result.raw), 'the raw answer is a spec InitializeResult')
  // probe, initialize, notifications/initialized; no session, so no DELETE
  t.same(peer.requests, ['POST', 'POST', 'POST'])
})

t.test('SDK v1 server: initialize offers the configured legacy version', async t => {
  const peer = await startV1()
  t.teardown(peer.close)
  const found = await discover(peer.url, { legacyProtocolVersion: '2025-06-18' })
  t.equal(found.era, 'legacy')
  t.equal(found.protocolVersion, '2025-06-18')
})

t.test('SDK v2 dual server: the client stays modern and never sends initialize', async t => {
  let initializeSeen = false
  const peer = await startV2({ mode: 'dual' })
  t.teardown(peer.close)
  const found = await discover(peer.url, {
    fetch: async (url, init) => {
      if (typeof init.body === 'string' && init.body.includes('"initialize"')) initializeSeen = true
      return await fetch(url, init)
    }
  })
  t.equal(found.era, 'modern')
  t.equal(initializeSeen, false)
})

t.test('DiscoverCache against the SDK v2 server: public hint shared across credentials', async t => {
  let requests = 0
  const peer = await startV2({ mode: 'dual', discoverHint: { ttlMs: 60_000, cacheScope: 'public' } })
  t.teardown(peer.close)
  const cache = new DiscoverCache({ fetch: async (url, init) => { requests++; return await fetch(url, init) } })
  const a = await cache.discover(peer.url, { headers: { authorization: 'Bearer a' } })
  const b = await cache.discover(peer.url, { headers: { authorization: 'Bearer b' } })
  t.equal(requests, 1)
  t.equal(a, b)
})

t.test('a modern error from a real server is reported, not a legacy fallback', async t => {
  const peer = await startV2({ mode: 'modern' })
  t.teardown(peer.close)
  // Drop the Mcp-Method header: the server must answer -32020 (or another modern 400).
  const err = await discover(peer.url, {
    fetch: async (url, init) => {
      const headers = new Headers(init.headers)
      headers.delete('mcp-method')
      return await fetch(url, { ...init, headers })
    }
  }).then(() => null, (e: unknown) => e)
  t.ok(err instanceof DiscoverJsonRpcError, 'a JSON-RPC error')
  if (err instanceof DiscoverJsonRpcError) {
    t.equal(err.era, 'modern')
    t.equal(err.status, 400)
    t.ok([-32020, -32602].includes(err.code), `modern code ${err.code}`)
  }
})
