// docs/security.md: the DNS-rebinding defence. `inject` gives the
// endpoint a mock socket without a local address (not a loopback listener),
// so the loopback defaults are checked against a server listening on
// 127.0.0.1 and a real HTTP client.
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { ErrorCode } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { assertError, httpPost, mcpClient, modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

const DISCOVER = { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } }

function forbidden (what: 'Origin' | 'Host') {
  return { status: 403, code: ErrorCode.InvalidRequest, id: undefined, message: new RegExp(`${what} not allowed`) }
}

async function listen (t: Parameters<typeof buildApp>[0], options: Parameters<typeof buildApp>[1] = {}) {
  const app = await buildApp(t, options)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { port } = app.server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/mcp`, port }
}

t.test('loopback listener, defaults: loopback origins and hosts allowed, others 403', async (t) => {
  const { url, port } = await listen(t)
  for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'http://app.localhost', `http://localhost:${port}`, 'https://LOCALHOST']) {
    const reply = await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin })
    t.equal(reply.status, 200, `Origin ${origin} allowed`)
  }
  for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'null', 'file://', 'not a url']) {
    assertError(t, await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin }), forbidden('Origin'))
  }
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'localhost', '127.0.0.1', 'LocalHost', `127.0.0.10:${port}`, `[::1]:${port}`]) {
    t.equal((await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), host })).status, 200, `Host ${host} allowed`)
  }
  // Names that start like the two plain loopback names the check recognises without copying.
  for (const host of ['evil.example', `evil.example:${port}`, 'localhost.evil.example', `127.0.0.1.evil.example:${port}`, 'localhostx', '127.0.0.1x']) {
    assertError(t, await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), host }), forbidden('Host'))
  }
  t.equal((await httpPost(t, url, DISCOVER, modernHeaders('server/discover'))).status, 200, 'no Origin (not a browser): allowed')
})

t.test('loopback listener with security.allowedOrigins: only the configured origins', async (t) => {
  const { url } = await listen(t, { security: { allowedOrigins: ['https://app.example.com', 'http://localhost:5173/some/path'] } })
  for (const origin of ['https://app.example.com', 'https://APP.example.com', 'http://localhost:5173']) {
    t.equal((await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin })).status, 200, `${origin} allowed`)
  }
  for (const origin of ['http://localhost:3000', 'https://app.example.com:8443', 'http://app.example.com', 'https://evil.example']) {
    assertError(t, await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), origin }), forbidden('Origin'))
  }
})

t.test('loopback listener with security.allowedHosts: only the configured hosts', async (t) => {
  const { url } = await listen(t, { security: { allowedHosts: ['mcp.internal', 'Proxy.Example:8443'] } })
  for (const host of ['mcp.internal', 'mcp.internal:1234', 'proxy.example:8443', 'PROXY.example:8443']) {
    t.equal((await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), host })).status, 200, `Host ${host} allowed`)
  }
  for (const host of ['localhost', 'proxy.example', 'proxy.example:9000', 'evil.example']) {
    assertError(t, await httpPost(t, url, DISCOVER, { ...modernHeaders('server/discover'), host }), forbidden('Host'))
  }
})

t.test('an Origin that is not allowed: 403 (inject)', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  for (const origin of ['https://evil.example', 'null', 'http://localhost.evil.example']) {
    assertError(t, await mcp.modern('server/discover', {}, { headers: { origin } }), forbidden('Origin'))
    assertError(t, await mcp.initialize('2025-11-25', { headers: { origin } }), forbidden('Origin'))
  }
  // inject() is judged like a loopback connection (issue 11): a foreign Host is refused even when Origin matches it.
  assertError(t, await mcp.modern('server/discover', {}, { headers: { host: 'mcp.example.com', origin: 'https://mcp.example.com' } }), forbidden('Host'))
  t.equal((await mcp.modern('server/discover', {}, { headers: { host: 'localhost:3000', origin: 'http://localhost:5173' } })).status, 200)
})

t.test('the Origin check runs before anything else: GET, DELETE and bad bodies get 403 too', async (t) => {
  const app = await buildApp(t)
  const mcp = mcpClient(t, app)
  const origin = 'https://evil.example'
  assertError(t, await mcp.send('GET', { origin }), forbidden('Origin'))
  assertError(t, await mcp.send('DELETE', { origin }), forbidden('Origin'))
  assertError(t, await mcp.post('not json', { 'content-type': 'application/json', origin }), forbidden('Origin'))
})

t.test('security.allowedOrigins: true allows any origin', async (t) => {
  const app = await buildApp(t, { security: { allowedOrigins: true } })
  const mcp = mcpClient(t, app)
  for (const origin of ['https://evil.example', 'null', 'http://localhost:1']) {
    t.equal((await mcp.modern('server/discover', {}, { headers: { origin } })).status, 200, `${origin} allowed`)
  }
})

t.test('security.allowedOrigins list (inject)', async (t) => {
  const app = await buildApp(t, { security: { allowedOrigins: ['https://app.example.com'] } })
  const mcp = mcpClient(t, app)
  t.equal((await mcp.modern('server/discover', {}, { headers: { origin: 'https://app.example.com' } })).status, 200)
  assertError(t, await mcp.modern('server/discover', {}, { headers: { origin: 'https://app.example.com.evil.example' } }), forbidden('Origin'))
})

t.test('security.allowedHosts list and true (inject)', async (t) => {
  const listed = mcpClient(t, await buildApp(t, { security: { allowedHosts: ['mcp.example.com'] } }))
  t.equal((await listed.modern('server/discover', {}, { headers: { host: 'mcp.example.com' } })).status, 200)
  t.equal((await listed.modern('server/discover', {}, { headers: { host: 'mcp.example.com:8443' } })).status, 200)
  assertError(t, await listed.modern('server/discover', {}, { headers: { host: 'evil.example' } }), forbidden('Host'))
  assertError(t, await listed.modern('server/discover', {}, { headers: { host: 'localhost:80' } }), forbidden('Host'))
  const any = mcpClient(t, await buildApp(t, { security: { allowedHosts: true } }))
  t.equal((await any.modern('server/discover', {}, { headers: { host: 'evil.example' } })).status, 200)
})
