// Guards issue 22 item 7: an https issuer's metadata could send the key-set
// fetch to plain http on loopback (`http://127.0.0.1:6379/keys`), making
// this process call its own local services. Decision: a `jwks_uri` on a
// loopback host (http or https) is followed only for an issuer that is on
// loopback itself (local development, tests); any other issuer's key set
// must be https off this machine. Refused discovery is a 503 (the token
// could not be checked), retried after the usual pause.
import * as jose from 'jose'
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { resolveAuthorization } from '../../lib/auth/authorization-options.js'
import { isAllowedJwksUri } from '../../lib/auth/issuer-metadata.js'
import { createJwtVerifier } from '../../lib/auth/jwt-verifier.js'
import { type AuthVerdict, isRejection, ResourceServer } from '../../lib/auth/resource-server.js'
import { startAuthServer } from '../helpers/auth-server.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const REMOTE_ISSUER = 'https://auth.example.com'

const as = await startAuthServer()
t.teardown(() => as.close())

function requestWith (token: string, logged: unknown[]): FastifyRequest {
  return { headers: { authorization: `Bearer ${token}` }, raw: { socket: {} }, log: { error (obj: unknown) { logged.push(obj) } } } as unknown as FastifyRequest
}

/** A remote issuer whose metadata (served by this fake fetch) names `jwksUri`; everything else goes to the network. */
function remoteIssuerFetch (jwksUri: string): typeof globalThis.fetch {
  return async (input, init) => {
    const url = String(input instanceof Request ? input.url : input)
    if (url.startsWith(REMOTE_ISSUER + '/')) {
      return new Response(JSON.stringify({ issuer: REMOTE_ISSUER, jwks_uri: jwksUri }), { headers: { 'content-type': 'application/json' } })
    }
    return await globalThis.fetch(input, init)
  }
}

function serverFor (issuer: string, fetchFn: typeof globalThis.fetch): ResourceServer {
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: [issuer] })
  if (settings === undefined || settings.verifier.kind !== 'jwt') throw new Error('expected JWT settings')
  const verify = createJwtVerifier(jose, settings.verifier.settings, fetchFn)
  return new ResourceServer(settings, (token) => verify(token))
}

const statusOf = (v: AuthVerdict): number => isRejection(v) ? v.status : 200

t.test('an https issuer naming a plain-http loopback jwks_uri: not fetched, 503', async (t) => {
  const before = as.fetches.jwks
  // The key set at that loopback address would even verify the token: the refusal is what stops it.
  const rs = serverFor(REMOTE_ISSUER, remoteIssuerFetch(as.issuer + '/jwks'))
  const token = await as.mint(RESOURCE, { iss: REMOTE_ISSUER, sub: 'alice' })
  const logged: unknown[] = []
  t.equal(statusOf(await rs.authenticate(requestWith(token, logged))), 503)
  t.equal(as.fetches.jwks, before, 'nothing was fetched from loopback')
  t.match(String((logged[0] as { err?: { cause?: Error } }).err?.cause?.message), /loopback host only for a loopback issuer/, 'the log says why')
})

t.test('the rule itself', async (t) => {
  const remote = new URL(REMOTE_ISSUER)
  const local = new URL(as.issuer)
  t.notOk(isAllowedJwksUri(new URL('http://127.0.0.1:6379/keys'), remote), 'plain http loopback, remote issuer')
  t.notOk(isAllowedJwksUri(new URL('https://localhost/keys'), remote), 'https loopback, remote issuer')
  t.notOk(isAllowedJwksUri(new URL('http://[::1]/keys'), remote), 'IPv6 loopback, remote issuer')
  t.notOk(isAllowedJwksUri(new URL('http://keys.example.com/keys'), remote), 'plain http anywhere else')
  t.ok(isAllowedJwksUri(new URL('https://keys.example.com/keys'), remote), 'https elsewhere, remote issuer')
  t.ok(isAllowedJwksUri(new URL('http://127.0.0.1:1234/keys'), local), 'plain http loopback for a loopback issuer')
})

t.test('a loopback issuer keeps its loopback key set', async (t) => {
  const rs = serverFor(as.issuer, globalThis.fetch)
  t.equal(statusOf(await rs.authenticate(requestWith(await as.mint(RESOURCE, { sub: 'bob' }), []))), 200)
})
