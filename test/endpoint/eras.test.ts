// docs/protocol.md "Eras": what each deployment era answers to legacy
// `initialize` and to modern requests.
import t from 'tap'
import { buildCapabilities, ErrorCode } from '../../lib/index.js'
import { buildApp, fullModule, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { assertError, assertResult, CLIENT_INFO, META_SERVER_INFO, META_VERSION, mcpClient, MODERN, modernMeta } from '../helpers/mcp-inject.js'

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']
/** The codes a dual-era client takes as "this server is modern" (no fallback to initialize). */
const MODERN_CODES = [ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability, ErrorCode.UnsupportedProtocolVersion, ErrorCode.MethodNotFound]

function legacyInit (version: string) {
  return {
    protocolVersion: version,
    capabilities: buildCapabilities(fullModule(), { era: 'legacy' }),
    serverInfo: SERVER_INFO
  }
}

t.test('legacy deployment: modern requests get a non-modern 4xx, so a dual-era client falls back', async (t) => {
  const app = await buildApp(t, { era: 'legacy' })
  const probes: Array<[string, Parameters<ReturnType<typeof mcpClient>['modern']>]> = [
    ['server/discover', ['server/discover', {}, { id: 'probe' }]],
    ['server/discover without version headers', ['server/discover', {}, { id: 'probe', headers: { 'mcp-protocol-version': undefined, 'mcp-method': undefined } }]],
    ['server/discover for an unknown version', ['server/discover', {}, { id: 'probe', meta: { ...modernMeta(), [META_VERSION]: '2099-01-01' }, headers: { 'mcp-protocol-version': '2099-01-01' } }]],
    ['tools/list', ['tools/list', {}, { id: 'probe' }]],
    ['tools/call needing sampling', ['tools/call', { name: 'echo' }, { id: 'probe' }]],
    ['initialize with modern _meta', ['initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: CLIENT_INFO }, { id: 'probe' }]]
  ]
  for (const [name, args] of probes) {
    t.test(name, async (t) => {
      const reply = await mcpClient(t, app).modern(...args)
      t.ok(reply.status >= 400 && reply.status < 500, '4xx')
      t.notOk(reply.json?.result, 'no result (no DiscoverResult)')
      t.notOk(MODERN_CODES.includes(reply.json?.error?.code), `not a modern error code (${String(reply.json?.error?.code)})`)
      assertError(t, reply, { status: 400, code: ErrorCode.InvalidRequest, id: 'probe' })
    })
  }
  t.test('a legacy request naming the modern version in its header: 400, not a modern code', async (t) => {
    assertError(t, await mcpClient(t, app).legacy('tools/list', {}, { id: 'h', protocolVersion: MODERN }),
      { status: 400, code: ErrorCode.InvalidRequest, id: 'h' })
  })
  t.test('and still serves initialize', async (t) => {
    assertResult(t, await mcpClient(t, app).initialize('2025-11-25'), 1, legacyInit('2025-11-25'))
  })
})

t.test('modern deployment: legacy initialize gets 400 -32022 naming the modern versions and the requested one', async (t) => {
  const app = await buildApp(t, { era: 'modern' })
  for (const requested of [...LEGACY_VERSIONS, '2099-01-01']) {
    t.test(requested, async (t) => {
      const reply = await mcpClient(t, app).initialize(requested, { id: `init-${requested}` })
      assertError(t, reply, {
        status: 400,
        code: ErrorCode.UnsupportedProtocolVersion,
        id: `init-${requested}`,
        data: { supported: [MODERN], requested }
      })
      t.match(reply.json.error.message, MODERN, 'the message names the modern version (a legacy client\'s only diagnostic)')
    })
  }
  t.test('other legacy requests get the same answer, requesting their header version or 2025-03-26', async (t) => {
    const mcp = mcpClient(t, app)
    assertError(t, await mcp.legacy('tools/list', {}, { id: 2, protocolVersion: '2025-06-18' }),
      { status: 400, code: ErrorCode.UnsupportedProtocolVersion, id: 2, data: { supported: [MODERN], requested: '2025-06-18' } })
    assertError(t, await mcp.legacy('ping', undefined, { id: 3 }),
      { status: 400, code: ErrorCode.UnsupportedProtocolVersion, id: 3, data: { supported: [MODERN], requested: '2025-03-26' } })
  })
  t.test('modern requests are served', async (t) => {
    const reply = await mcpClient(t, app).modern('server/discover', {}, { id: 4 })
    t.equal(reply.status, 200)
    t.strictSame(reply.json.result.supportedVersions, [MODERN])
    t.strictSame(reply.json.result._meta, { [META_SERVER_INFO]: SERVER_INFO })
  })
  t.test('initialize carrying modern _meta is a removed method: 404 -32601', async (t) => {
    const reply = await mcpClient(t, app).modern('initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: CLIENT_INFO }, { id: 5 })
    assertError(t, reply, { status: 404, code: ErrorCode.MethodNotFound, id: 5 })
  })
})

t.test('dual deployment (the default) serves both eras', async (t) => {
  const app = await buildApp(t)
  t.equal(app.mcp.era, 'dual')
  for (const version of LEGACY_VERSIONS) {
    t.test(`initialize ${version}`, async (t) => {
      assertResult(t, await mcpClient(t, app).initialize(version, { id: version }), version, legacyInit(version))
    })
  }
  t.test('server/discover', async (t) => {
    const reply = await mcpClient(t, app).modern('server/discover', {}, { id: 'd' })
    t.equal(reply.status, 200)
    t.strictSame(reply.json.result.capabilities, buildCapabilities(fullModule(), { era: 'modern' }))
  })
  t.test('the same method in each era', async (t) => {
    const mcp = mcpClient(t, app)
    const legacy = await mcp.legacy('tools/list', {}, { id: 1, protocolVersion: '2025-11-25' })
    const modern = await mcp.modern('tools/list', {}, { id: 1 })
    t.strictSame(Object.keys(legacy.json.result), ['tools'], 'legacy result as the handler returned it')
    t.strictSame(Object.keys(modern.json.result).sort(), ['_meta', 'cacheScope', 'resultType', 'tools', 'ttlMs'], 'modern result stamped')
  })
  t.test('initialize carrying modern _meta is a removed method: 404 -32601', async (t) => {
    const reply = await mcpClient(t, app).modern('initialize', { protocolVersion: MODERN, capabilities: {}, clientInfo: CLIENT_INFO }, { id: 6 })
    assertError(t, reply, { status: 404, code: ErrorCode.MethodNotFound, id: 6 })
  })
})

t.test('explicit dual equals the default', async (t) => {
  const app = await buildApp(t, { era: 'dual' })
  const mcp = mcpClient(t, app)
  assertResult(t, await mcp.initialize('2025-06-18'), 1, legacyInit('2025-06-18'))
  t.equal((await mcp.modern('server/discover')).status, 200)
})
