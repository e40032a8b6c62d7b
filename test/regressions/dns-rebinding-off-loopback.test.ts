// Guards issue 11 item 7: on a connection that is not loopback (here a Unix
// socket, as behind a reverse proxy) the default check accepted any Origin
// equal to Host, which a DNS-rebinding page always satisfies. Decision: off
// loopback, with neither security.allowedOrigins nor security.allowedHosts configured, a request
// carrying an Origin is refused (browsers need explicit configuration);
// requests without Origin (non-browser clients) are served. `inject()` has no
// socket address and is judged like a loopback connection from its
// `remoteAddress` (127.0.0.1 unless set).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { fullModule, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta, rawPost } from '../helpers/mcp-inject.js'

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: modernMeta() } })
const HEADERS = { ...modernHeaders('tools/list'), 'content-type': 'application/json' }

async function onUnixSocket (t: Test, options: Partial<McpCapabilitiesOptions> = {}): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-rebind-'))
  const socketPath = join(dir, 'mcp.sock')
  const app = Fastify()
  await app.register(mcpCapabilities, { server: fullModule(), serverInfo: SERVER_INFO, ...options })
  await app.listen({ path: socketPath })
  t.teardown(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return socketPath
}

t.test('off loopback, nothing configured: a rebinding page (Origin = Host, foreign name) is refused', async (t) => {
  const socketPath = await onUnixSocket(t)
  const rebinding = await rawPost({ socketPath }, { ...HEADERS, host: 'evil.example', origin: 'http://evil.example' }, LIST)
  t.equal(rebinding.status, 403)
  const json = JSON.parse(rebinding.body)
  t.equal(json.error.code, -32600)
  t.match(json.error.message, /Origin/)
  const noOrigin = await rawPost({ socketPath }, { ...HEADERS, host: 'mcp.internal' }, LIST)
  t.equal(noOrigin.status, 200, 'a client without Origin (not a browser) is served')
})

t.test('off loopback with security.allowedHosts: an Origin must name an allowed host and match Host', async (t) => {
  const socketPath = await onUnixSocket(t, { security: { allowedHosts: ['mcp.example.com'] } })
  t.equal((await rawPost({ socketPath }, { ...HEADERS, host: 'evil.example', origin: 'http://evil.example' }, LIST)).status, 403)
  t.equal((await rawPost({ socketPath }, { ...HEADERS, host: 'mcp.example.com', origin: 'https://mcp.example.com' }, LIST)).status, 200)
  t.equal((await rawPost({ socketPath }, { ...HEADERS, host: 'mcp.example.com', origin: 'https://evil.example' }, LIST)).status, 403)
})

t.test('off loopback with security.allowedOrigins: only those origins', async (t) => {
  const socketPath = await onUnixSocket(t, { security: { allowedOrigins: ['https://app.example.com'] } })
  t.equal((await rawPost({ socketPath }, { ...HEADERS, host: 'evil.example', origin: 'http://evil.example' }, LIST)).status, 403)
  t.equal((await rawPost({ socketPath }, { ...HEADERS, host: 'mcp.example.com', origin: 'https://app.example.com' }, LIST)).status, 200)
})

t.test('inject() is judged like loopback: loopback hosts and origins only', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: fullModule(), serverInfo: SERVER_INFO })
  const send = (headers: Record<string, string>, remoteAddress?: string) =>
    app.inject({ method: 'POST', url: '/mcp', headers: { ...HEADERS, ...headers }, payload: LIST, ...(remoteAddress === undefined ? {} : { remoteAddress }) })
  t.equal((await send({ host: 'localhost:80', origin: 'http://localhost:3000' })).statusCode, 200)
  t.equal((await send({ host: 'evil.example', origin: 'http://evil.example' })).statusCode, 403, 'rebinding refused')
  t.equal((await send({ host: 'evil.example' })).statusCode, 403, 'a foreign Host is refused as on loopback')
  t.equal((await send({ host: 'evil.example', origin: 'http://evil.example' }, '10.0.0.8')).statusCode, 403, 'a non-loopback remoteAddress: Origin needs configuration')
})
