// Guards issue 22 item 9: URI template variables were percent-decoded into
// `/`, `..` and NUL, so `files://..%2F..%2Fetc%2Fpasswd` handed the handler
// `../../etc/passwd` (the README says a variable never spans a `/`). A
// decoded value holding `/`, `\` or a control character, or one that is `.`
// or `..`, names no resource: the handler is never called with it.
import t from 'tap'
import { defineResources } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const REFUSED = [
  'files://..%2F..%2Fetc%2Fpasswd',
  'files://%2Fetc%2Fpasswd',
  'files://..%5C..%5Cwindows',
  'files://a\\b',
  'files://a%00b',
  'files://a%0Ab',
  'files://%7F',
  'files://%C2%85',
  'files://..',
  'files://.',
  'files://%2E%2E',
  'files://dir/..%2Fx'
]
const SERVED: Array<[string, Record<string, string>]> = [
  ['files://notes.txt', { name: 'notes.txt' }],
  ['files://a%20b', { name: 'a b' }],
  ['files://...', { name: '...' }],
  ['files://%C3%A9t%C3%A9', { name: 'été' }],
  ['files://dir/x.md', { dir: 'dir', name: 'x.md' }]
]

t.test('a decoded template value never holds a path separator, a control character, or . / .. alone', async (t) => {
  const seen: Array<Record<string, string>> = []
  const resources = defineResources({
    file: { uriTemplate: 'files://{name}', read: (variables) => { seen.push({ ...variables }); return 'ok' } },
    nested: { uriTemplate: 'files://{dir}/{name}', read: (variables) => { seen.push({ ...variables }); return 'ok' } }
  })
  const app = await buildApp(t, { server: resources as never })
  const client = mcpClient(t, app)
  for (const uri of REFUSED) {
    for (const era of ['legacy', 'modern'] as const) {
      const reply = era === 'legacy' ? await client.legacy('resources/read', { uri }, { protocolVersion: '2025-11-25' }) : await client.modern('resources/read', { uri })
      const error = (reply.json as any)?.error
      t.equal(error?.code, era === 'legacy' ? -32002 : -32602, `${era} ${uri}: resource not found`)
      t.equal(error?.data?.uri, uri, `${era} ${uri}: data.uri names it`)
    }
  }
  t.strictSame(seen, [], 'the handler never saw a refused value')
  for (const [uri, variables] of SERVED) {
    const reply = await client.legacy('resources/read', { uri }, { protocolVersion: '2025-11-25' })
    t.equal((reply.json as any)?.result?.contents?.[0]?.text, 'ok', `${uri} is served`)
    t.strictSame(seen.pop(), variables, `${uri}: the handler gets ${JSON.stringify(variables)}`)
  }
})
