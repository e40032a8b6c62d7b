/**
 * `npm start` with MCP_AUTH_ISSUER: the notes example, in its own process,
 * requires bearer tokens from the local test authorization server (JWKS
 * found through its RFC 8414 metadata), with http://HOST:PORT/mcp as the
 * audience; add_note needs notes:write, everything else a valid token. The
 * official SDK client with client credentials lists and calls tools.
 */
import { join } from 'node:path'
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import t from 'tap'
import { startAuthServer } from '../helpers/auth-server.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { cleanEnv, freePort, startServerProcess } from '../helpers/server-process.js'

const as = await startAuthServer({ clients: { app: { secret: 'app-secret', scopes: ['notes:write'] } } })
t.teardown(() => as.close())

const port = await freePort()
const env = cleanEnv({ HOST: '127.0.0.1', PORT: String(port), MCP_AUTH_ISSUER: as.issuer, LOG_LEVEL: 'info', VALIDATE_RESULTS: '1' })
delete env.MCP_RESOURCE_URL
const example = await startServerProcess({
  name: 'notes example with MCP_AUTH_ISSUER',
  command: process.execPath,
  args: ['--import', 'tsx', join(REPO_ROOT, 'examples', 'server.ts')],
  cwd: REPO_ROOT,
  env,
  readyFromOutput: (text) => /Server listening at http:\/\/127\.0\.0\.1:\d+/.test(text) ? true : undefined
})
t.teardown(() => example.stop())
const output = example.output

const resource = `http://127.0.0.1:${port}/mcp`
const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`

async function call (name: string, token?: string): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  return fetch(resource, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name, arguments: { title: 't', body: 'b', query: 'x', text: 'a b' } } }) })
}

t.test('without a token: 401 pointing at the metadata document', async (t) => {
  const response = await call('search_notes')
  t.equal(response.status, 401)
  t.equal(response.headers.get('www-authenticate'), `Bearer resource_metadata="${metadataUrl}", scope="notes:write"`)
  const metadata = await (await fetch(metadataUrl)).json()
  t.strictSame(metadata, { resource, authorization_servers: [as.issuer], bearer_methods_supported: ['header'], scopes_supported: ['notes:write'], resource_name: 'Notes (example)' })
})

t.test('a valid token is enough for everything but add_note, which needs notes:write', async (t) => {
  const plain = await as.mint(resource, { sub: 'u1', scope: '' })
  t.equal((await call('search_notes', plain)).status, 200)
  t.equal((await call('word_count', plain)).status, 200)
  const denied = await call('add_note', plain)
  t.equal(denied.status, 403)
  t.match(denied.headers.get('www-authenticate'), /error="insufficient_scope".*scope="notes:write"/)
  t.equal(((await denied.json()) as { id?: unknown }).id, 5, 'the 403 echoes the request id')
  const writer = await as.mint(resource, { sub: 'u1', scope: 'notes:write' })
  t.equal((await call('add_note', writer)).status, 200)
  const foreign = await as.mint('http://127.0.0.1:1/mcp', { sub: 'u1', scope: 'notes:write' })
  t.equal((await call('search_notes', foreign)).status, 401, 'a token for another resource is refused')
  t.ok(as.fetches.metadata >= 1, 'the JWKS was found through the RFC 8414 metadata')
})

t.test('the official SDK client with client credentials', async (t) => {
  const client = new Client({ name: 'example-auth-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
  t.teardown(() => client.close())
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), {
    authProvider: new ClientCredentialsProvider({ clientId: 'app', clientSecret: 'app-secret', expectedIssuer: as.issuer })
  }))
  const { tools } = await client.listTools()
  t.ok(tools.some((tool) => tool.name === 'add_note'))
  const added = await client.callTool({ name: 'add_note', arguments: { title: 'From the SDK', body: 'hello' } })
  t.equal((added.content as Array<{ type: string }>)[0]?.type, 'resource_link')
  t.notMatch(output(), /eyJ[\w-]+\.[\w-]+\.[\w-]+/, 'no token in the example\'s log')
})
