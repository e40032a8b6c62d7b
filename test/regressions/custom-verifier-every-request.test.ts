// Guards issue 22 item 4: a custom `verifyAccessToken(token, request)` ran
// once per token, not per request. With `tokenCache: false` two concurrent
// requests with one token shared one call, so a check the verifier makes on
// the request (a DPoP proof, a client certificate, a tenant header) was
// skipped for the second. Decision: with `tokenCache: false` the verifier
// runs for every request, concurrent or not; with the cache on, its answer
// is taken to depend on the token alone (docs/authorization.md).
// Issue 36 (closing note): the cache was on by default for a custom verifier
// too; now it is off unless asked for (the built-in JWT path keeps it on).
import Fastify, { type LightMyRequestResponse } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { fullModule, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: modernMeta() } })

/** An app whose endpoint is authorized with `verifyAccessToken` (and `tokenCache`); returns a sender of server/discover with the good token. */
async function appWith (t: Test, authorization: Pick<NonNullable<McpCapabilitiesOptions['authorization']>, 'verifyAccessToken' | 'tokenCache'>): Promise<(headers?: Record<string, string>) => Promise<LightMyRequestResponse>> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: fullModule(),
    serverInfo: SERVER_INFO,
    authorization: { resource: RESOURCE, authorizationServers: ['https://auth.example.com'], ...authorization }
  })
  const send = async (headers: Record<string, string> = {}): Promise<LightMyRequestResponse> => await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...modernHeaders('server/discover'), 'content-type': 'application/json', authorization: 'Bearer good-token', ...headers },
    payload: BODY
  })
  return send
}

t.test('tokenCache: false: concurrent requests with one token are each verified, with their own request', async (t) => {
  const seen: string[] = []
  const sendWith = await appWith(t, {
    tokenCache: false,
    // A request-bound check: the token is good only with the tenant header "acme".
    async verifyAccessToken (token, request) {
      const tenant = String(request.headers['x-tenant'])
      seen.push(tenant)
      await new Promise((resolve) => setTimeout(resolve, 20))
      if (token !== 'good-token' || tenant !== 'acme') return null
      return { subject: 'alice', issuer: 'https://auth.example.com', scopes: [] }
    }
  })
  const send = (tenant: string) => sendWith({ 'x-tenant': tenant })
  // The good request first, so a shared call would carry its verdict to the others.
  const [good, other, again] = await Promise.all([send('acme'), send('evil'), send('evil')])
  t.equal(good.statusCode, 200, 'the request the verifier accepts is served')
  t.equal(other.statusCode, 401, 'a concurrent request with the same token but another tenant is refused')
  t.equal(again.statusCode, 401, 'and so is a third')
  t.strictSame(seen.sort(), ['acme', 'evil', 'evil'], 'the verifier saw each request')
  // Sequentially too: nothing remembered.
  t.equal((await send('evil')).statusCode, 401)
  t.equal((await send('acme')).statusCode, 200)
  t.equal(seen.length, 5, 'one call per request')
})

t.test('by default a custom verifier sees every request, with that request', async (t) => {
  const seen: string[] = []
  const sendWith = await appWith(t, {
    verifyAccessToken (token, request) {
      const tenant = String(request.headers['x-tenant'])
      seen.push(tenant)
      if (token !== 'good-token' || tenant !== 'acme') return null
      return { subject: 'alice', issuer: 'https://auth.example.com', scopes: [] }
    }
  })
  const send = (tenant: string) => sendWith({ 'x-tenant': tenant })
  t.equal((await send('acme')).statusCode, 200)
  t.equal((await send('evil')).statusCode, 401, 'the same token with another tenant is refused: nothing was remembered')
  t.equal((await send('acme')).statusCode, 200)
  t.strictSame(seen, ['acme', 'evil', 'acme'], 'one call per request')
})

t.test('with the cache asked for, one verification per token (the documented contract)', async (t) => {
  let calls = 0
  const send = await appWith(t, {
    tokenCache: true,
    async verifyAccessToken () {
      calls++
      await new Promise((resolve) => setTimeout(resolve, 20))
      return { subject: 'alice', issuer: 'https://auth.example.com', scopes: [] }
    }
  })
  const replies = await Promise.all([send(), send(), send()])
  t.strictSame(replies.map((r) => r.statusCode), [200, 200, 200])
  t.equal((await send()).statusCode, 200)
  t.equal(calls, 1, 'verified once, then remembered')
})
