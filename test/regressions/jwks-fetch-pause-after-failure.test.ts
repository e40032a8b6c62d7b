// Guards issue 22 item 5: while the key-set (JWKS) fetch failed, every
// request with any token naming the issuer (`{"alg":"RS256","iss":...}`, no
// valid signature needed) triggered another fetch: 30 requests, 30 fetches.
// Decision: after a failed fetch the verifier pauses (5 s, as discovery
// already did): requests in the pause get 503 at once without a fetch; keys
// fetched before keep serving tokens they know while they are fresh.
import * as jose from 'jose'
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { resolveAuthorization } from '../../lib/auth/authorization-options.js'
import { createJwtVerifier, RETRY_AFTER_FAILURE_MS } from '../../lib/auth/jwt-verifier.js'
import { type AuthVerdict, isRejection, ResourceServer } from '../../lib/auth/resource-server.js'
import { startAuthServer, type TestAuthServer } from '../helpers/auth-server.js'

const RESOURCE = 'https://mcp.example.com/mcp'

function requestWith (token: string): FastifyRequest {
  return { headers: { authorization: `Bearer ${token}` }, raw: { socket: {} }, log: { error () {} } } as unknown as FastifyRequest
}

function server (as: TestAuthServer, clock: () => number): ResourceServer {
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: [as.issuer], jwt: { jwksCooldownMs: 0 } })
  if (settings === undefined || settings.verifier.kind !== 'jwt') throw new Error('expected JWT settings')
  const verify = createJwtVerifier(jose, settings.verifier.settings, globalThis.fetch, clock)
  return new ResourceServer(settings, (token) => verify(token))
}

const statusOf = (v: AuthVerdict): number => isRejection(v) ? v.status : 200

t.test('30 requests while the JWKS fails: one fetch, every one answered 503', async (t) => {
  const as = await startAuthServer()
  t.teardown(() => as.close())
  let now = Date.now()
  const rs = server(as, () => now)
  as.failJwks(503)
  // Distinct tokens (no cache or shared verification helps): a signature is not even needed.
  const tokens = await Promise.all(Array.from({ length: 30 }, (_, i) => as.mint(RESOURCE, { sub: `user-${i}` })))
  const first = await rs.authenticate(requestWith(tokens[0] as string))
  t.equal(statusOf(first), 503, 'the first request: 503')
  const rest = await Promise.all(tokens.slice(1).map((token) => rs.authenticate(requestWith(token))))
  t.strictSame([...new Set(rest.map(statusOf))], [503], 'the other 29: 503')
  t.equal(as.fetches.jwks, 1, 'one JWKS fetch for 30 requests')
  // After the pause, the next request fetches again, and the key set is back.
  as.failJwks(undefined)
  now += RETRY_AFTER_FAILURE_MS + 1
  t.equal(statusOf(await rs.authenticate(requestWith(tokens[1] as string))), 200, 'after the pause: fetched and accepted')
  t.equal(as.fetches.jwks, 2, 'one more fetch')
})

t.test('a failed refetch (unknown kid) pauses fetching, yet keys already held still serve', async (t) => {
  const as = await startAuthServer()
  t.teardown(() => as.close())
  let now = Date.now()
  const rs = server(as, () => now)
  const known = await as.mint(RESOURCE, { sub: 'alice' })
  t.equal(statusOf(await rs.authenticate(requestWith(known))), 200, 'the key set is fetched once')
  t.equal(as.fetches.jwks, 1)
  as.failJwks(500)
  const stranger = await as.newKey()
  const unknown = await Promise.all(Array.from({ length: 30 }, (_, i) => as.mint(RESOURCE, { sub: `u${i}`, key: stranger })))
  const verdicts = []
  for (const token of unknown) verdicts.push(statusOf(await rs.authenticate(requestWith(token))))
  t.strictSame([...new Set(verdicts)], [503], 'an unknown key while the JWKS cannot be fetched: 503 (not a 401 that sends the client to re-authorize)')
  t.equal(as.fetches.jwks, 2, 'one refetch for 30 tokens with an unknown kid')
  const another = await as.mint(RESOURCE, { sub: 'bob' })
  t.equal(statusOf(await rs.authenticate(requestWith(another))), 200, 'a token signed with a key already held is still accepted in the pause')
  t.equal(as.fetches.jwks, 2, 'without a fetch')
  now += RETRY_AFTER_FAILURE_MS + 1
  as.failJwks(undefined)
  as.publish(stranger)
  t.equal(statusOf(await rs.authenticate(requestWith(unknown[0] as string))), 200, 'after the pause the new key is fetched')
  t.equal(as.fetches.jwks, 3)
})
