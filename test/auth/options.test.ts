/**
 * The `authorization` option is checked at registration: each bad value
 * fails with FST_MCP_INVALID_OPTION naming the field; good values are
 * normalised (defaults, audiences, the metadata document and its URL).
 */
import t from 'tap'
import { resolveAuthorization } from '../../lib/auth/authorization-options.js'
import { metadataPath, metadataUrl } from '../../lib/auth/protected-resource-metadata.js'
import { ResourceServer } from '../../lib/auth/resource-server.js'

const base = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'] }

t.test('bad values fail with a coded error naming the field', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    ['yes', /"authorization"/],
    [{ ...base, resource: 'mcp.example.com' }, /authorization\.resource/],
    [{ ...base, resource: 'ftp://mcp.example.com/mcp' }, /authorization\.resource/],
    [{ ...base, resource: 'https://mcp.example.com/mcp#x' }, /authorization\.resource.*fragment/],
    [{ ...base, resource: 'https://mcp.example.com/mcp?a=1' }, /authorization\.resource.*query/],
    [{ ...base, authorizationServers: [] }, /authorization\.authorizationServers/],
    [{ ...base, authorizationServers: ['http://auth.example.com'] }, /authorizationServers\[0\].*https/],
    [{ ...base, scopesSupported: ['a b'] }, /authorization\.scopesSupported/],
    [{ ...base, requiredScopes: ['ok', 'bad"quote'] }, /authorization\.requiredScopes/],
    [{ ...base, methodScopes: { 'tools/call': 'x' } }, /authorization\.methodScopes/],
    [{ ...base, impliedScopes: [] }, /authorization\.impliedScopes/],
    [{ ...base, verifyAccessToken: 'fn' }, /authorization\.verifyAccessToken/],
    [{ ...base, verifyAccessToken: () => null, jwt: {} }, /authorization\.jwt.*not both/],
    [{ ...base, jwt: { algorithms: ['HS256'] } }, /authorization\.jwt\.algorithms.*HS256/],
    [{ ...base, jwt: { algorithms: ['none'] } }, /authorization\.jwt\.algorithms/],
    [{ ...base, jwt: { clockToleranceSec: -1 } }, /authorization\.jwt\.clockToleranceSec/],
    [{ ...base, jwt: { jwksUri: 'http://keys.example.com/jwks' } }, /authorization\.jwt\.jwksUri/],
    [{ ...base, authorizationServers: ['https://a.example.com', 'https://b.example.com'], jwt: { jwksUri: 'https://a.example.com/jwks' } }, /one JWKS URL serves one issuer/],
    [{ ...base, jwt: { jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } } }, /authorization\.jwt\.jwks.*public keys only/],
    [{ ...base, jwt: { bogus: 1 } }, /authorization\.jwt\.bogus/],
    [{ ...base, tokenCache: { maxEntries: 0 } }, /authorization\.tokenCache\.maxEntries/],
    [{ ...base, tokenCache: 'on' }, /"authorization\.tokenCache": expected true, false or an object \{ maxEntries\?, maxTtlMs\? \}/],
    [{ ...base, jwt: { issuers: ['https://a.example.com', 'ftp://b'] } }, /"authorization\.jwt\.issuers\[1\]"/],
    [{ ...base, methodScopes: { 'tools/call': ['a b'] } }, /"authorization\.methodScopes\["tools\/call"\]\[0\]"/],
    [{ ...base, filterLists: 'yes' }, /authorization\.filterLists/],
    [{ ...base, resourceDocumentation: 'not a url' }, /authorization\.resourceDocumentation/],
    [{ ...base, extra: 1 }, /authorization\.extra.*unknown option/],
    [{ ...base, scopeSupported: [] }, /"authorization\.scopeSupported": unknown option \(known: resource, authorizationServers,.*\); did you mean "scopesSupported"\?/]
  ]
  for (const [value, message] of cases) {
    t.throws(() => resolveAuthorization(value), { code: 'FST_MCP_INVALID_OPTION', message }, JSON.stringify(value))
  }
})

t.test('defaults and normalisation', async (t) => {
  t.equal(resolveAuthorization(undefined), undefined, 'absent: the endpoint is open')
  const settings = resolveAuthorization({ ...base, authorizationServers: ['http://127.0.0.1:9000'], scopesSupported: ['a', 'a', 'b'] })
  if (settings === undefined || settings.verifier.kind !== 'jwt') return t.fail('jwt settings')
  t.same(settings.scopesSupported, ['a', 'b'], 'duplicates dropped')
  t.same(settings.verifier.settings.issuers, ['http://127.0.0.1:9000'], 'issuers default to the authorization servers (http on loopback)')
  t.same(settings.verifier.settings.audiences, ['https://mcp.example.com/mcp', 'https://mcp.example.com/mcp/'])
  t.same(settings.verifier.settings.algorithms, ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'])
  t.equal(settings.verifier.settings.clockToleranceSec, 5)
  t.same(settings.tokenCache, { maxEntries: 1000, maxTtlMs: 300000 })
  t.same(resolveAuthorization({ ...base, tokenCache: false })?.tokenCache, { maxEntries: 0, maxTtlMs: 0 })
  t.same(resolveAuthorization({ ...base, tokenCache: true })?.tokenCache, { maxEntries: 1000, maxTtlMs: 300000 }, 'true: the defaults')
  // A custom verifier is handed the request: its answers are not kept unless asked for.
  const verifyAccessToken = (): null => null
  t.same(resolveAuthorization({ ...base, verifyAccessToken })?.tokenCache, { maxEntries: 0, maxTtlMs: 0 }, 'custom verifier: off by default')
  t.same(resolveAuthorization({ ...base, verifyAccessToken, tokenCache: true })?.tokenCache, { maxEntries: 1000, maxTtlMs: 300000 }, 'custom verifier: on when asked')
  t.same(resolveAuthorization({ ...base, verifyAccessToken, tokenCache: { maxEntries: 5 } })?.tokenCache, { maxEntries: 5, maxTtlMs: 300000 })
  t.same(resolveAuthorization({ ...base, jwt: { jwks: { keys: [] } }, tokenCache: false })?.tokenCache, { maxEntries: 0, maxTtlMs: 0 }, 'JWT: off when asked')
})

t.test('the metadata document and where it lives (RFC 9728)', async (t) => {
  t.equal(metadataPath(new URL('https://mcp.example.com/mcp')), '/.well-known/oauth-protected-resource/mcp')
  t.equal(metadataPath(new URL('https://mcp.example.com/a/b/')), '/.well-known/oauth-protected-resource/a/b')
  t.equal(metadataPath(new URL('https://mcp.example.com')), '/.well-known/oauth-protected-resource', 'a bare origin: the root document')
  t.equal(metadataUrl(new URL('https://mcp.example.com:8443/mcp')), 'https://mcp.example.com:8443/.well-known/oauth-protected-resource/mcp')
  const settings = resolveAuthorization({ ...base, scopesSupported: ['notes:read'], resourceName: 'Notes', resourceDocumentation: 'https://docs.example.com/notes' })
  if (settings === undefined) return t.fail('settings')
  const server = new ResourceServer(settings, () => null)
  t.same(JSON.parse(server.metadataJson), {
    resource: 'https://mcp.example.com/mcp',
    authorization_servers: ['https://auth.example.com'],
    bearer_methods_supported: ['header'],
    scopes_supported: ['notes:read'],
    resource_name: 'Notes',
    resource_documentation: 'https://docs.example.com/notes'
  })
  t.same(server.metadataPaths, ['/.well-known/oauth-protected-resource/mcp'])
  const bare = new ResourceServer(resolveAuthorization({ ...base, resource: 'https://mcp.example.com' }) as NonNullable<ReturnType<typeof resolveAuthorization>>, () => null)
  t.equal(JSON.parse(bare.metadataJson).resource, 'https://mcp.example.com', 'the resource exactly as configured')
  t.notOk('scopes_supported' in JSON.parse(bare.metadataJson), 'no scopes_supported when none are configured')
})
