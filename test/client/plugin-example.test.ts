/**
 * The client against this package's own example server in each era: the era
 * it detects, the versions, and capabilities equal to what the plugin built.
 */
import t from 'tap'
import { discover, DiscoverCache, DiscoverJsonRpcError } from '../../lib/client/index.js'
import { buildExampleServer } from '../../examples/server.js'
import { LATEST_LEGACY_VERSION, MODERN_VERSIONS } from '../../lib/protocol/versions.js'

async function start (era: 'legacy' | 'modern' | 'dual') {
  process.env.LOG_LEVEL = 'silent'
  const app = await buildExampleServer({ era, validate: { results: true } })
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return { app, url: `${address}/mcp` }
}

for (const era of ['dual', 'modern'] as const) {
  t.test(`plugin example, ${era}: modern era with the configured hints`, async t => {
    const { app, url } = await start(era)
    t.teardown(() => app.close())
    const found = await discover(url)
    t.equal(found.era, 'modern')
    t.equal(found.reason, 'discover-result')
    t.equal(found.protocolVersion, MODERN_VERSIONS[0])
    t.same(found.supportedVersions, [...MODERN_VERSIONS])
    t.same(found.capabilities, app.mcp.capabilities.modern)
    t.same(found.serverInfo, app.mcp.serverInfo)
    t.equal(found.ttlMs, 60_000)
    t.equal(found.cacheScope, 'public')
  })
}

t.test('plugin example, legacy: detected as legacy through initialize', async t => {
  const { app, url } = await start('legacy')
  t.teardown(() => app.close())
  const found = await discover(url)
  t.equal(found.era, 'legacy')
  t.equal(found.protocolVersion, LATEST_LEGACY_VERSION)
  t.same(found.capabilities, app.mcp.capabilities.legacy)
  t.equal(found.ttlMs, 0, 'legacy answers are never cached')
  t.equal(found.cacheScope, 'private')
})

t.test('plugin example, modern: an unsupported version is retried with the advertised one', async t => {
  const { app, url } = await start('modern')
  t.teardown(() => app.close())
  const found = await discover(url, { protocolVersion: '2099-01-01' })
  t.equal(found.era, 'modern')
  t.equal(found.reason, 'discover-result-after-retry')
  t.equal(found.protocolVersion, MODERN_VERSIONS[0])
})

t.test('plugin example: a public discover answer is cached and shared across credentials', async t => {
  const { app, url } = await start('dual')
  t.teardown(() => app.close())
  let requests = 0
  app.server.on('request', () => { requests++ })
  const cache = new DiscoverCache()
  const a = await cache.discover(url, { headers: { authorization: 'Bearer one' } })
  const b = await cache.discover(url, { headers: { authorization: 'Bearer two' } })
  t.equal(requests, 1, 'the second credential was served from the public entry')
  t.same(a.capabilities, b.capabilities)
  t.ok(DiscoverJsonRpcError, 'typed errors are exported')
})
