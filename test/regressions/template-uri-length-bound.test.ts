// Guards issue 36 (the stall figures of `npm run bench:hostile`): a 1 MB URI
// was matched against every URI template, twice (once for the scopes, once
// to read), linear but still 126-385 ms of blocked event loop per request
// on a quiet machine, and "resource not found" echoed the whole megabyte in
// `data.uri`. A URI over MAX_TEMPLATE_URI_LENGTH characters now matches no
// template, and `data.uri` is cut to MAX_ECHOED_URI_LENGTH characters.
import t from 'tap'
import { defineResources } from '../../lib/index.js'
import { MAX_TEMPLATE_URI_LENGTH, parseUriTemplate } from '../../lib/definitions/uri-template.js'
import { MAX_ECHOED_URI_LENGTH } from '../../lib/protocol/mcp-error.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

const PREFIX = 'db://'
/** A URI of `length` characters that `db://{schema}.{table}` would match. */
const uriOf = (length: number): string => PREFIX + 'a.'.repeat((length - PREFIX.length - 1) / 2) + 'a'.repeat(length - PREFIX.length - 2 * Math.floor((length - PREFIX.length - 1) / 2))

t.test('a URI over the bound matches no template; one at the bound still does', async (t) => {
  const template = parseUriTemplate('db://{schema}.{table}', 'test')
  const atBound = uriOf(MAX_TEMPLATE_URI_LENGTH)
  t.equal(atBound.length, MAX_TEMPLATE_URI_LENGTH)
  t.ok(template.match(atBound) !== undefined, 'a URI of exactly the bound is matched')
  t.equal(template.match(uriOf(MAX_TEMPLATE_URI_LENGTH + 1)), undefined, 'one character more: no match')
  t.equal(template.match(uriOf(1_000_001)), undefined, 'a 1 MB URI: no match')
})

t.test('resources/read of a URI over the bound is "resource not found", with data.uri cut', async (t) => {
  const seen: string[] = []
  const resources = defineResources({ table: { uriTemplate: 'db://{schema}.{table}', read: (_variables, uri) => { seen.push(uri); return 'ok' } } })
  const app = await buildApp(t, { server: resources as never })
  const client = mcpClient(t, app)

  const served = await client.legacy('resources/read', { uri: uriOf(MAX_TEMPLATE_URI_LENGTH) }, { protocolVersion: '2025-11-25' })
  t.equal((served.json as any)?.result?.contents?.[0]?.text, 'ok', 'a URI at the bound is read')

  const over = uriOf(MAX_TEMPLATE_URI_LENGTH + 1)
  const modern = await client.modern('resources/read', { uri: over })
  t.equal((modern.json as any)?.error?.code, -32602, 'modern: resource not found (-32602)')
  const legacy = await client.legacy('resources/read', { uri: over }, { protocolVersion: '2025-11-25' })
  t.equal((legacy.json as any)?.error?.code, -32002, 'legacy: resource not found (-32002)')

  const huge = uriOf(1_000_001)
  const reply = await client.legacy('resources/read', { uri: huge }, { protocolVersion: '2025-11-25' })
  const error = (reply.json as any)?.error
  t.equal(error?.code, -32002, 'a 1 MB URI: resource not found')
  t.equal(error?.data?.uri, huge.slice(0, MAX_ECHOED_URI_LENGTH) + '…', 'data.uri is the URI cut to the bound')
  t.ok(reply.body.length < 2 * MAX_ECHOED_URI_LENGTH, `the answer is ${reply.body.length} characters, not the megabyte`)
  t.strictSame(seen, [uriOf(MAX_TEMPLATE_URI_LENGTH)], 'only the URI at the bound reached the handler')
})
