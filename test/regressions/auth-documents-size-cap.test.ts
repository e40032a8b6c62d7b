// Guards issue 22 item 6: authorization-server documents were read whole
// before their size was checked (the key set not at all): a 40 MB JWKS
// added ~150-190 MB of memory and was accepted, a 30 MB metadata document
// ~110 MB. Decision: both are read as streams and the read stops, dropping
// the connection, past the cap (metadata 256 KiB, key set 1 MiB); such a
// document is unusable (503, the token could not be checked). Measured here
// against a local server that streams the padding as the socket takes it.
import * as jose from 'jose'
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { resolveAuthorization } from '../../lib/auth/authorization-options.js'
import { MAX_KEY_SET_BYTES, MAX_METADATA_BYTES } from '../../lib/auth/bounded-fetch.js'
import { createJwtVerifier } from '../../lib/auth/jwt-verifier.js'
import { type AuthVerdict, isRejection, ResourceServer } from '../../lib/auth/resource-server.js'
import { startAuthServer, type TestAuthServer } from '../helpers/auth-server.js'
import { heldBytes, MB, settledBytes } from './helpers.js'

const RESOURCE = 'https://mcp.example.com/mcp'

function requestWith (token: string): FastifyRequest {
  return { headers: { authorization: `Bearer ${token}` }, raw: { socket: {} }, log: { error () {} } } as unknown as FastifyRequest
}

function server (as: TestAuthServer): ResourceServer {
  const settings = resolveAuthorization({ resource: RESOURCE, authorizationServers: [as.issuer] })
  if (settings === undefined || settings.verifier.kind !== 'jwt') throw new Error('expected JWT settings')
  const verify = createJwtVerifier(jose, settings.verifier.settings)
  return new ResourceServer(settings, (token) => verify(token))
}

/** The verdict, and memory: growth at the peak (sampled while it runs) and kept after a full collection. */
async function measured (run: () => Promise<AuthVerdict>): Promise<{ verdict: AuthVerdict, peakMB: number, keptMB: number }> {
  const before = await settledBytes()
  let peak = before
  const sampler = setInterval(() => { peak = Math.max(peak, heldBytes()) }, 1)
  const verdict = await run()
  peak = Math.max(peak, heldBytes())
  clearInterval(sampler)
  const after = await settledBytes()
  return { verdict, peakMB: (peak - before) / MB, keptMB: (after - before) / MB }
}

t.test('a 40 MB key set: the read stops past 1 MiB, the token gets 503', async (t) => {
  const as = await startAuthServer()
  t.teardown(() => as.close())
  const rs = server(as)
  const token = await as.mint(RESOURCE, { sub: 'alice' })
  as.pad({ jwks: 40 * MB })
  const { verdict, peakMB, keptMB } = await measured(async () => await rs.authenticate(requestWith(token)))
  t.comment(`40 MB JWKS: peak +${peakMB.toFixed(1)} MB, kept +${keptMB.toFixed(1)} MB, padding pushed by the server ${(as.paddingSent.jwks / MB).toFixed(1)} MB`)
  t.ok(isRejection(verdict) && verdict.status === 503, 'refused as unusable (503), not accepted')
  t.ok(peakMB < 16, `memory at the peak grew less than 16 MB (${peakMB.toFixed(1)})`)
  t.ok(keptMB < 4, `nothing of it is kept (${keptMB.toFixed(1)} MB)`)
  t.ok(as.paddingSent.jwks < 20 * MB, 'the connection was dropped: the server stopped well before 40 MB')
  t.equal(MAX_KEY_SET_BYTES, MB, 'the cap the README states')
})

t.test('30 MB metadata documents: the read stops past 256 KiB, the token gets 503', async (t) => {
  const as = await startAuthServer()
  t.teardown(() => as.close())
  const rs = server(as)
  const token = await as.mint(RESOURCE, { sub: 'alice' })
  as.pad({ metadata: 30 * MB })
  const { verdict, peakMB, keptMB } = await measured(async () => await rs.authenticate(requestWith(token)))
  t.comment(`30 MB metadata (both documents): peak +${peakMB.toFixed(1)} MB, kept +${keptMB.toFixed(1)} MB, padding pushed ${(as.paddingSent.metadata / MB).toFixed(1)} MB`)
  t.ok(isRejection(verdict) && verdict.status === 503, 'no usable metadata: 503')
  t.ok(peakMB < 16, `memory at the peak grew less than 16 MB (${peakMB.toFixed(1)})`)
  t.ok(keptMB < 4, `nothing of it is kept (${keptMB.toFixed(1)} MB)`)
  t.ok(as.paddingSent.metadata < 20 * MB, 'the server stopped well before 2 x 30 MB')
  t.equal(as.fetches.jwks, 0, 'no key set was fetched')
  t.equal(MAX_METADATA_BYTES, 256 * 1024, 'the cap the README states')
})

t.test('documents just under the caps are read and used', async (t) => {
  const as = await startAuthServer()
  t.teardown(() => as.close())
  const rs = server(as)
  as.pad({ metadata: MAX_METADATA_BYTES - 4096, jwks: MAX_KEY_SET_BYTES - 4096 })
  const verdict = await rs.authenticate(requestWith(await as.mint(RESOURCE, { sub: 'alice' })))
  t.notOk(isRejection(verdict), 'accepted')
})
