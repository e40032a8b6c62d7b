/**
 * The resource server core against the local authorization server: every
 * way a token can be wrong gets the right status and `WWW-Authenticate`
 * challenge; a good token is verified once (metadata and JWKS fetched once,
 * later requests answered synchronously from the cache); the JWKS is
 * refetched for an unknown `kid`; custom verifiers; never past expiry.
 */
import type { FastifyRequest } from 'fastify'
import * as jose from 'jose'
import t, { type Test } from 'tap'
import { InvalidTokenError } from '../../lib/auth/verified-token.js'
import { type AuthorizationOptions, resolveAuthorization } from '../../lib/auth/authorization-options.js'
import { createJwtVerifier } from '../../lib/auth/jwt-verifier.js'
import { type AuthVerdict, isRejection, ResourceServer, type TokenVerifier } from '../../lib/auth/resource-server.js'
import { startAuthServer, type TestAuthServer } from '../helpers/auth-server.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const METADATA = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'

const errors: unknown[] = []
/** One keep-alive connection: requests on it share their socket. */
const connection = {}
function requestWith (authorization?: string, socket: object = {}): FastifyRequest {
  return {
    headers: authorization === undefined ? {} : { authorization },
    raw: { socket },
    log: { error: (obj: unknown) => { errors.push(obj) } }
  } as unknown as FastifyRequest
}

function jwtServer (as: TestAuthServer, extra: Partial<AuthorizationOptions> = {}, now?: () => number): ResourceServer {
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: [as.issuer], scopesSupported: ['notes:read', 'notes:write'], ...extra })
  if (settings === undefined || settings.verifier.kind !== 'jwt') throw new Error('expected JWT settings')
  const verify = createJwtVerifier(jose, settings.verifier.settings)
  return new ResourceServer(settings, (token) => verify(token), now)
}

async function verdict (server: ResourceServer, authorization?: string): Promise<AuthVerdict> {
  return await server.authenticate(requestWith(authorization))
}

function rejection (t: Test, v: AuthVerdict, status: number, challenge: string | undefined): void {
  t.ok(isRejection(v), 'refused')
  if (!isRejection(v)) return
  t.equal(v.status, status, `HTTP ${status}`)
  t.equal(v.challenge, challenge, 'WWW-Authenticate')
}

const as = await startAuthServer()
t.teardown(() => as.close())

const invalid = (description: string): string =>
  `Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="${description}", scope="notes:read notes:write"`

t.test('no credential: 401 pointing at the metadata, no error code', async (t) => {
  const server = jwtServer(as)
  const expected = `Bearer resource_metadata="${METADATA}", scope="notes:read notes:write"`
  rejection(t, await verdict(server), 401, expected)
  rejection(t, await verdict(server, 'Basic dXNlcjpwYXNz'), 401, expected)
  rejection(t, await verdict(server, 'Bearerx abc'), 401, expected)
})

t.test('malformed Bearer credential: 400 invalid_request', async (t) => {
  const server = jwtServer(as)
  for (const header of ['Bearer a b', 'Bearer ab"c', 'Bearer =abc']) {
    const v = await verdict(server, header)
    t.ok(isRejection(v) && v.status === 400 && v.challenge?.includes('error="invalid_request"'), JSON.stringify(header))
  }
})

t.test('a valid token: verified once, then answered synchronously from the cache', async (t) => {
  const before = { ...as.fetches }
  const server = jwtServer(as)
  const token = await as.mint(RESOURCE, { sub: 'alice', clientId: 'app', scope: 'notes:read' })
  const first = await verdict(server, `Bearer ${token}`)
  t.notOk(isRejection(first), 'accepted')
  if (isRejection(first)) return
  t.equal(first.principal, `sub ${as.issuer} alice`, 'principal: issuer and subject')
  t.same(first.info.scopes, ['notes:read'])
  t.equal(first.info.subject, 'alice')
  t.equal(first.info.clientId, 'app')
  t.equal(first.info.issuer, as.issuer)
  t.equal(first.info.token, undefined, 'the token is not exposed by default')
  t.equal(typeof first.info.expiresAt, 'number')
  t.equal(as.fetches.metadata - before.metadata, 1, 'RFC 8414 metadata fetched once')
  t.equal(as.fetches.jwks - before.jwks, 1, 'JWKS fetched once')
  const again = server.authenticate(requestWith(`bearer  ${token} `))
  t.notOk(again instanceof Promise, 'a known token is answered synchronously')
  t.equal(again, first, 'the same verified caller')
  const other = await verdict(server, `Bearer ${await as.mint(RESOURCE, { clientId: 'robot', scope: '' })}`)
  t.equal(isRejection(other) ? undefined : other.principal, `client ${as.issuer} robot`, 'no subject: issuer and client id')
  t.equal(as.fetches.jwks - before.jwks, 1, 'no further JWKS fetch')
})

t.test('expired, not yet valid, foreign audience, foreign issuer, no expiry: 401 invalid_token', async (t) => {
  const server = jwtServer(as)
  rejection(t, await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', expiresIn: -60 })}`), 401, invalid('The access token expired'))
  rejection(t, await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', notBefore: 120 })}`), 401, invalid('The access token is not valid yet'))
  rejection(t, await verdict(server, `Bearer ${await as.mint('https://other.example.com/mcp', { sub: 'a' })}`), 401, invalid('The access token was not issued for this resource'))
  rejection(t, await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', iss: 'https://evil.example.com' })}`), 401, invalid('The access token was issued by another authorization server'))
  rejection(t, await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', noExp: true })}`), 401, invalid('The access token has no expiry'))
  rejection(t, await verdict(server, 'Bearer not.a.jwt'), 401, invalid('The access token is not a JWT'))
  // Within the clock tolerance (5 s) an expiry a moment ago still passes.
  t.notOk(isRejection(await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', expiresIn: -2 })}`)), 'clock tolerance')
  // The bare-origin and trailing-slash forms of the resource are the same audience.
  const slash = jwtServer(as)
  t.notOk(isRejection(await verdict(slash, `Bearer ${await as.mint(RESOURCE + '/', { sub: 'a' })}`)), 'trailing slash accepted')
})

t.test('alg none and HS256 keyed with the public key are refused without a key lookup', async (t) => {
  const server = jwtServer(as)
  const before = as.fetches.jwks
  const refusal = invalid('The access token is signed with an algorithm this resource does not accept')
  rejection(t, await verdict(server, `Bearer ${as.unsignedToken(RESOURCE, { sub: 'a' })}`.replace(/\.$/, '.x')), 401, invalid('The access token is signed with an algorithm this resource does not accept'))
  rejection(t, await verdict(server, `Bearer ${await as.hmacWithPublicKey(RESOURCE, { sub: 'a' })}`), 401, refusal)
  t.equal(as.fetches.jwks, before, 'no JWKS fetch for them')
  // An unsigned token with its empty signature is not even a b64token.
  const v = await verdict(server, `Bearer ${as.unsignedToken(RESOURCE, { sub: 'a' })}`)
  t.ok(isRejection(v) && (v.status === 400 || v.status === 401), 'empty signature refused')
})

t.test('unknown kid: the JWKS is fetched again (after the cooldown) and the new key accepted', async (t) => {
  const server = jwtServer(as, { jwt: { jwksCooldownMs: 0 } })
  t.notOk(isRejection(await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a' })}`)), 'current key')
  const key = await as.newKey()
  const before = as.fetches.jwks
  rejection(t, await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', key })}`), 401, invalid('The access token is signed with an unknown key'))
  t.equal(as.fetches.jwks, before + 1, 'an unpublished kid made the JWKS be fetched again')
  as.publish(key)
  t.notOk(isRejection(await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a' })}`)), 'the rotated key is found after a refetch')
  t.equal(as.fetches.jwks, before + 2)
  // With the default cooldown, a burst of unknown kids cannot make it fetch again.
  const calm = jwtServer(as)
  await verdict(calm, `Bearer ${await as.mint(RESOURCE, { sub: 'a' })}`)
  const settled = as.fetches.jwks
  const stranger = await as.newKey()
  for (let i = 0; i < 3; i++) await verdict(calm, `Bearer ${await as.mint(RESOURCE, { sub: 'a', key: stranger })}`)
  t.equal(as.fetches.jwks, settled, 'no refetch within the cooldown')
})

t.test('required scopes: a valid token without them gets 403 naming them', async (t) => {
  const server = jwtServer(as, { requiredScopes: ['mcp'] })
  const v = await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', scope: 'notes:read' })}`)
  rejection(t, v, 403, `Bearer resource_metadata="${METADATA}", error="insufficient_scope", error_description="This operation needs the scopes mcp", scope="mcp"`)
  const ok = await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', scope: 'mcp' })}`)
  t.notOk(isRejection(ok))
  rejection(t, await verdict(server), 401, `Bearer resource_metadata="${METADATA}", scope="mcp"`)
})

t.test('scopes needed per operation, implied scopes', async (t) => {
  const server = jwtServer(as, {
    requiredScopes: ['mcp'],
    methodScopes: { 'tools/call': ['tools'] },
    impliedScopes: { admin: ['notes:write'], 'notes:write': ['notes:read'] }
  })
  t.same(server.scopesNeeded('tools/list', undefined), ['mcp'])
  t.same(server.scopesNeeded('tools/call', ['notes:write', 'mcp']), ['mcp', 'tools', 'notes:write'])
  const caller = await verdict(server, `Bearer ${await as.mint(RESOURCE, { sub: 'a', scope: 'mcp admin' })}`)
  if (isRejection(caller)) return t.fail('accepted')
  t.same([...caller.scopes].sort(), ['admin', 'mcp', 'notes:read', 'notes:write'], 'hierarchy expanded')
  const denied = server.checkScopes(caller, server.scopesNeeded('tools/call', ['notes:write']))
  t.equal(denied?.status, 403)
  t.match(denied?.challenge, /scope="mcp tools notes:write"/, 'every needed scope, not only the missing one')
  t.equal(server.checkScopes(caller, ['notes:read']), undefined)
})

t.test('metadata via OpenID discovery; an unreachable server is 503 and retried later', async (t) => {
  const oidc = await startAuthServer({ openIdOnly: true })
  t.teardown(() => oidc.close())
  const server = jwtServer(oidc)
  t.notOk(isRejection(await verdict(server, `Bearer ${await oidc.mint(RESOURCE, { sub: 'a' })}`)), 'accepted')
  t.equal(oidc.fetches.openid, 1)

  const down = await startAuthServer()
  const token = await down.mint(RESOURCE, { sub: 'a' })
  const issuer = down.issuer
  await down.close()
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: [issuer] })
  if (settings?.verifier.kind !== 'jwt') throw new Error('jwt')
  const verify = createJwtVerifier(jose, { ...settings.verifier.settings, fetchTimeoutMs: 1000 })
  const s = new ResourceServer(settings, (tok) => verify(tok))
  errors.length = 0
  const v = await verdict(s, `Bearer ${token}`)
  rejection(t, v, 503, undefined)
  t.equal(errors.length, 1, 'logged')
  t.notMatch(JSON.stringify(errors), token, 'without the token')
})

t.test('custom verifier: facts, null, InvalidTokenError, a failure, audience', async (t) => {
  let calls = 0
  let clock = 1_000_000_000_000
  const exp = clock / 1000 + 60
  const verify: TokenVerifier = (token) => {
    calls++
    if (token === 'good') return { subject: 'bob', issuer: 'https://as.example.com', scopes: 'a b', expiresAt: exp, claims: { tenant: 't1' } }
    if (token === 'other-aud') return { subject: 'bob', audience: ['https://elsewhere.example.com'] }
    if (token === 'this-aud') return { subject: 'bob', audience: 'https://mcp.example.com/mcp/' }
    if (token === 'revoked') throw new InvalidTokenError('The access token was revoked')
    if (token === 'boom') throw new Error('introspection endpoint down')
    return null
  }
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: ['https://as.example.com'], verifyAccessToken: verify, exposeToken: true, tokenCache: true })
  if (settings === undefined) throw new Error('settings')
  const server = new ResourceServer(settings, settings.verifier.kind === 'custom' ? settings.verifier.verify : verify, () => clock)
  const good = await verdict(server, 'Bearer good')
  if (isRejection(good)) return t.fail('accepted')
  t.same(good.info, { issuer: 'https://as.example.com', subject: 'bob', clientId: undefined, scopes: ['a', 'b'], expiresAt: exp, claims: { tenant: 't1' }, token: 'good' })
  await verdict(server, 'Bearer good')
  t.equal(calls, 1, 'cached')
  // On one connection the repeated header is recognised without a cache lookup, within the same limits.
  t.equal(server.authenticate(requestWith('Bearer good', connection)), good, 'first on this connection')
  t.equal(server.authenticate(requestWith('Bearer good', connection)), good, 'again on this connection')
  server.clearCache()
  await verdict(server, 'Bearer good')
  t.equal(calls, 2, 'clearCache forgets the cache and every connection memo')
  await server.authenticate(requestWith('Bearer good', connection))
  t.equal(calls, 2, 'verified once more, then remembered on the connection')
  clock += 61_000
  const onConnection = await server.authenticate(requestWith('Bearer good', connection))
  t.equal(calls, 3, 'the connection memo ends at the token\'s expiry too')
  t.ok(isRejection(onConnection), 'and the expired token is refused')
  const expired = await verdict(server, 'Bearer good')
  t.equal(calls, 4, 'never served from the cache past its expiry')
  rejection(t, expired, 401, `Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="The access token expired"`)
  rejection(t, await verdict(server, 'Bearer nope'), 401, `Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="The access token is invalid"`)
  rejection(t, await verdict(server, 'Bearer revoked'), 401, `Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="The access token was revoked"`)
  rejection(t, await verdict(server, 'Bearer other-aud'), 401, `Bearer resource_metadata="${METADATA}", error="invalid_token", error_description="The access token was not issued for this resource"`)
  t.notOk(isRejection(await verdict(server, 'Bearer this-aud')), 'own audience (trailing slash) accepted')
  rejection(t, await verdict(server, 'Bearer boom'), 503, undefined)
})

t.test('a burst of requests with a new token shares one verification', async (t) => {
  let calls = 0
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: ['https://as.example.com'], tokenCache: true, verifyAccessToken: async () => { calls++; await new Promise((resolve) => setTimeout(resolve, 20)); return { subject: 's' } } })
  if (settings?.verifier.kind !== 'custom') throw new Error('custom')
  const server = new ResourceServer(settings, settings.verifier.verify)
  const all = await Promise.all(Array.from({ length: 10 }, async () => await verdict(server, 'Bearer burst')))
  t.equal(calls, 1)
  t.ok(all.every((v) => !isRejection(v)))
})

t.test('jwt settings: a JWKS URL without discovery, a required typ, several issuers', async (t) => {
  const direct = jwtServer(as, { jwt: { jwksUri: `${as.issuer}/jwks` } })
  const before = { ...as.fetches }
  t.notOk(isRejection(await verdict(direct, `Bearer ${await as.mint(RESOURCE, { sub: 'a' })}`)), 'verified')
  t.equal(as.fetches.metadata, before.metadata, 'no metadata fetched with jwksUri')

  const typed = jwtServer(as, { jwt: { typ: 'at+jwt' } })
  t.notOk(isRejection(await verdict(typed, `Bearer ${await as.mint(RESOURCE, { sub: 'a' })}`)), 'typ at+jwt accepted')
  const plainJwt = await verdict(typed, `Bearer ${await as.mint(RESOURCE, { sub: 'a', typ: 'JWT' })}`)
  t.ok(isRejection(plainJwt) && plainJwt.status === 401, 'another typ refused')

  const other = await startAuthServer()
  t.teardown(() => other.close())
  const both = jwtServer(as, { authorizationServers: [as.issuer, other.issuer] })
  const a = await verdict(both, `Bearer ${await as.mint(RESOURCE, { sub: 'x' })}`)
  const b = await verdict(both, `Bearer ${await other.mint(RESOURCE, { sub: 'x' })}`)
  t.notOk(isRejection(a) || isRejection(b), 'tokens of either issuer')
  if (!isRejection(a) && !isRejection(b)) t.not(a.principal, b.principal, 'the same subject at two issuers is two principals')
  // A token claiming one issuer but signed by the other's key fails its signature check.
  const forged = await other.mint(RESOURCE, { sub: 'x', iss: as.issuer })
  const v = await verdict(both, `Bearer ${forged}`)
  t.ok(isRejection(v) && v.status === 401, 'forged issuer refused')
})
