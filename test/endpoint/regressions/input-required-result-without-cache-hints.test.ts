// Guards the caching rule for interim results: an `input_required` result of
// a cacheable method (resources/read, the lists) is not cacheable and carries
// no ttlMs/cacheScope (2026-07-28 server/utilities/caching, "Cacheable Results").
import t from 'tap'
import { buildApp, fullModule, RESOURCE } from '../../helpers/mcp-fixtures.js'
import { META_SERVER_INFO, mcpClient } from '../../helpers/mcp-inject.js'

const INPUT_REQUIRED = {
  resultType: 'input_required',
  inputRequests: { login: { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } } },
  requestState: 'state-1'
}

t.test('input_required results of cacheable methods carry no cache hints', async (t) => {
  const server = fullModule({ readResource: () => structuredClone(INPUT_REQUIRED) })
  const app = await buildApp(t, { server, cacheHints: { results: { ttlMs: 60000, cacheScope: 'public' } } })
  const reply = await mcpClient(t, app).modern('resources/read', { uri: RESOURCE.uri }, { id: 1, capabilities: { elicitation: {} } })
  const { requestState, ...rest } = reply.json.result
  t.strictSame(rest, { resultType: 'input_required', inputRequests: INPUT_REQUIRED.inputRequests, _meta: { [META_SERVER_INFO]: { name: 'fixture-server', version: '1.2.3' } } },
    'no ttlMs, no cacheScope')
  t.type(requestState, 'string')
})
