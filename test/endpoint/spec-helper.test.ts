// The response checker must be able to fail: it rejects bodies the spec
// forbids and accepts the spec's own examples.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { inferVersion, META_VERSION, modernMeta } from '../helpers/mcp-inject.js'
import { responseProblems } from '../helpers/spec-schemas.js'
import { SPEC_DIR } from '../helpers/paths.js'

const examples = join(SPEC_DIR, '2026-07-28', 'examples')

function example (type: string): unknown {
  const dir = join(examples, type)
  const file = readdirSync(dir).filter((f) => f.endsWith('.json')).sort()[0] as string
  return JSON.parse(readFileSync(join(dir, file), 'utf8'))
}

t.test('accepts the 2026-07-28 example responses', async (t) => {
  t.strictSame(responseProblems('2026-07-28', example('DiscoverResultResponse'), 'server/discover'), [])
  t.strictSame(responseProblems('2026-07-28', example('ListToolsResultResponse'), 'tools/list'), [])
  t.strictSame(responseProblems('2026-07-28', example('HeaderMismatchError'), 'tools/call'), [])
})

t.test('rejects a modern result without resultType or cache hints', async (t) => {
  const body = { jsonrpc: '2.0', id: 1, result: { tools: [] } }
  t.not(responseProblems('2026-07-28', body, 'tools/list').length, 0)
  const discover = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', supportedVersions: [], capabilities: {}, ttlMs: -1, cacheScope: 'private' } }
  t.not(responseProblems('2026-07-28', discover, 'server/discover').length, 0, 'negative ttlMs')
  const scope = { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', supportedVersions: [], capabilities: {}, ttlMs: 0, cacheScope: 'shared' } }
  t.not(responseProblems('2026-07-28', scope, 'server/discover').length, 0, 'unknown cacheScope')
})

t.test('rejects modern errors without their required data', async (t) => {
  const noData = { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported' } }
  t.not(responseProblems('2026-07-28', noData, 'tools/list').length, 0)
  const noCaps = { jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing', data: {} } }
  t.not(responseProblems('2026-07-28', noCaps, 'tools/call').length, 0)
  const badId = { jsonrpc: '2.0', id: 1.5, error: { code: -32600, message: 'x' } }
  t.not(responseProblems('2026-07-28', badId, undefined).length, 0, 'fractional id')
})

t.test('rejects legacy results that miss required fields', async (t) => {
  const init = { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05', capabilities: {} } }
  for (const v of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const) {
    t.not(responseProblems(v, init, 'initialize').length, 0, `${v}: initialize without serverInfo`)
  }
  t.not(responseProblems('2025-06-18', { jsonrpc: '2.0', result: {} }, 'ping').length, 0, 'result without id')
  t.not(responseProblems('2025-06-18', { jsonrpc: '2.0', id: 1, error: { code: 'x', message: 'y' } }, 'ping').length, 0, 'string code')
})

t.test('infers the version a response speaks from its request', async (t) => {
  const modern = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } }
  t.equal(inferVersion(JSON.stringify(modern), {}, undefined), '2026-07-28')
  t.equal(inferVersion({ jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { [META_VERSION]: '1900-01-01' } } }, {}, undefined), '2026-07-28')
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2099-01-01' } }
  t.equal(inferVersion(init, {}, { result: { protocolVersion: '2025-11-25' } }), '2025-11-25')
  t.equal(inferVersion({ ...init, params: { protocolVersion: '2024-11-05' } }, {}, { error: {} }), '2024-11-05')
  t.equal(inferVersion({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'MCP-Protocol-Version': '2025-06-18' }, {}), '2025-06-18')
  t.equal(inferVersion({ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, {}), '2025-03-26')
  t.equal(inferVersion('not json', { 'mcp-protocol-version': '2026-07-28' }, {}), '2026-07-28')
})
