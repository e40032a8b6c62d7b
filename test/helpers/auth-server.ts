/**
 * A small OAuth 2.1 authorization server for tests, on 127.0.0.1: RFC 8414
 * metadata, a JWKS, a client-credentials token endpoint (client_secret_basic
 * or client_secret_post, RFC 8707 `resource` as the audience) and helpers to
 * mint any token a test needs, good or hostile (expired, foreign audience,
 * unknown key, `alg: none`, HS256 keyed with the public key).
 */
import { createHmac, randomUUID } from 'node:crypto'
import { Readable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose'

export interface TestClient {
  secret: string
  /** Scopes this client may be granted. */
  scopes: string[]
}

export interface AuthServerOptions {
  clients?: Record<string, TestClient>
  /** Lifetime of issued tokens in seconds; default 3600. */
  tokenTtlSec?: number
  /** Serve the metadata only as OpenID configuration (no RFC 8414 document). */
  openIdOnly?: boolean
}

type Key = Awaited<ReturnType<typeof generateKeyPair>> & { kid: string, jwk: JWK }

export interface MintOptions {
  sub?: string
  clientId?: string
  scope?: string
  aud?: string | string[]
  iss?: string
  /** Seconds from now; default 3600. */
  expiresIn?: number
  /** Omit `exp` altogether. */
  noExp?: boolean
  /** Seconds from now for `nbf`. */
  notBefore?: number
  /** Sign with a key the JWKS does not (yet) list. */
  key?: Key
  typ?: string
  extra?: Record<string, unknown>
}

export interface TestAuthServer {
  readonly issuer: string
  readonly app: FastifyInstance
  /** How many times each document was fetched. */
  readonly fetches: { metadata: number, openid: number, jwks: number, token: number }
  /** Bytes of padding the server produced for each document (what it pushed towards the socket). */
  readonly paddingSent: { metadata: number, jwks: number }
  /** Answers the JWKS with this status (and no keys) until called with undefined. */
  failJwks (status: number | undefined): void
  /** Pads the documents (`metadata`: both metadata documents) with a string member of this many bytes, streamed (0: none). */
  pad (sizes: { metadata?: number, jwks?: number }): void
  /** The token endpoint's last form parameters. */
  readonly lastTokenRequest: URLSearchParams | undefined
  /** A signed access token for `audience`. */
  mint (audience: string, options?: MintOptions): Promise<string>
  /** A fresh key that the JWKS does not list until `publish(key)`. */
  newKey (): Promise<Key>
  /** Adds a key to the JWKS and signs new tokens with it. */
  publish (key: Key): void
  /** An unsigned token (`alg: none`). */
  unsignedToken (audience: string, options?: MintOptions): string
  /** A token "signed" with HS256 keyed by the current public key's PEM: the algorithm-confusion attack. */
  hmacWithPublicKey (audience: string, options?: MintOptions): Promise<string>
  close (): Promise<void>
}

const PAD_CHUNK = 'a'.repeat(64 * 1024)

/** `doc` as JSON with a `padding` member of `bytes` bytes, produced chunk by chunk as the socket takes it. */
function padded (doc: Record<string, unknown>, bytes: number, sent: (n: number) => void): Readable {
  return Readable.from((function * () {
    yield JSON.stringify(doc).slice(0, -1) + ',"padding":"'
    for (let left = bytes; left > 0; left -= PAD_CHUNK.length) {
      const chunk = left >= PAD_CHUNK.length ? PAD_CHUNK : PAD_CHUNK.slice(0, left)
      sent(chunk.length)
      yield chunk
    }
    yield '"}'
  })())
}

function b64 (value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url')
}

async function makeKey (): Promise<Key> {
  const pair = await generateKeyPair('RS256', { extractable: true })
  const kid = randomUUID()
  const jwk = { ...await exportJWK(pair.publicKey), kid, alg: 'RS256', use: 'sig' }
  return Object.assign(pair, { kid, jwk })
}

function claims (issuer: string, audience: string, options: MintOptions): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000)
  const payload: Record<string, unknown> = {
    iss: options.iss ?? issuer,
    aud: options.aud ?? audience,
    iat: now,
    jti: randomUUID(),
    ...options.extra
  }
  if (options.sub !== undefined) payload.sub = options.sub
  if (options.clientId !== undefined) payload.client_id = options.clientId
  if (options.scope !== undefined) payload.scope = options.scope
  if (options.noExp !== true) payload.exp = now + (options.expiresIn ?? 3600)
  if (options.notBefore !== undefined) payload.nbf = now + options.notBefore
  return payload
}

export async function startAuthServer (options: AuthServerOptions = {}): Promise<TestAuthServer> {
  const clients = options.clients ?? {}
  const tokenTtlSec = options.tokenTtlSec ?? 3600
  const keys: Key[] = [await makeKey()]
  let signing = keys[0] as Key
  const fetches = { metadata: 0, openid: 0, jwks: 0, token: 0 }
  const paddingSent = { metadata: 0, jwks: 0 }
  const padding = { metadata: 0, jwks: 0 }
  let jwksFailure: number | undefined
  let lastTokenRequest: URLSearchParams | undefined

  // Closes at once even while a client holds a connection open (undici opens a spare one after a dropped download).
  const app = Fastify({ forceCloseConnections: true })
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, new URLSearchParams(body as string))
  })
  let issuer = ''
  const metadata = (): Record<string, unknown> => ({
    issuer,
    authorization_endpoint: issuer + '/authorize',
    token_endpoint: issuer + '/token',
    jwks_uri: issuer + '/jwks',
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...new Set(Object.values(clients).flatMap((c) => c.scopes))]
  })
  if (options.openIdOnly !== true) {
    app.get('/.well-known/oauth-authorization-server', async (_request, reply) => {
      fetches.metadata++
      if (padding.metadata === 0) return metadata()
      return reply.type('application/json').send(padded(metadata(), padding.metadata, (n) => { paddingSent.metadata += n }))
    })
  }
  app.get('/.well-known/openid-configuration', async (_request, reply) => {
    fetches.openid++
    const doc = { ...metadata(), subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'] }
    if (padding.metadata === 0) return doc
    return reply.type('application/json').send(padded(doc, padding.metadata, (n) => { paddingSent.metadata += n }))
  })
  app.get('/jwks', async (_request, reply) => {
    fetches.jwks++
    if (jwksFailure !== undefined) return reply.code(jwksFailure).send({ error: 'unavailable' })
    const jwks = { keys: keys.map((k) => k.jwk) }
    if (padding.jwks === 0) return jwks
    return reply.type('application/json').send(padded(jwks, padding.jwks, (n) => { paddingSent.jwks += n }))
  })
  app.post('/token', async (request, reply) => {
    fetches.token++
    const form = request.body instanceof URLSearchParams ? request.body : new URLSearchParams()
    lastTokenRequest = form
    let clientId = form.get('client_id') ?? undefined
    let secret = form.get('client_secret') ?? undefined
    const basic = request.headers.authorization
    if (typeof basic === 'string' && basic.startsWith('Basic ')) {
      const [id, pass] = Buffer.from(basic.slice(6), 'base64').toString('utf8').split(':')
      clientId = decodeURIComponent(id ?? '')
      secret = decodeURIComponent(pass ?? '')
    }
    const client = clientId === undefined ? undefined : clients[clientId]
    if (client === undefined || client.secret !== secret) return reply.code(401).send({ error: 'invalid_client' })
    if (form.get('grant_type') !== 'client_credentials') return reply.code(400).send({ error: 'unsupported_grant_type' })
    const requested = (form.get('scope') ?? '').split(' ').filter((s) => s.length > 0)
    const granted = requested.length === 0 ? client.scopes : requested.filter((s) => client.scopes.includes(s))
    const resource = form.get('resource')
    if (resource === null) return reply.code(400).send({ error: 'invalid_target', error_description: 'resource is required' })
    const token = await new SignJWT(claims(issuer, resource, { sub: clientId, clientId, scope: granted.join(' '), expiresIn: tokenTtlSec }))
      .setProtectedHeader({ alg: 'RS256', kid: signing.kid, typ: 'at+jwt' })
      .sign(signing.privateKey)
    return { access_token: token, token_type: 'Bearer', expires_in: tokenTtlSec, scope: granted.join(' ') }
  })

  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  issuer = address

  return {
    issuer,
    app,
    fetches,
    paddingSent,
    failJwks (status) { jwksFailure = status },
    pad (sizes) {
      padding.metadata = sizes.metadata ?? padding.metadata
      padding.jwks = sizes.jwks ?? padding.jwks
    },
    get lastTokenRequest () { return lastTokenRequest },
    async mint (audience, opts = {}) {
      const key = opts.key ?? signing
      return new SignJWT(claims(issuer, audience, opts))
        .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: opts.typ ?? 'at+jwt' })
        .sign(key.privateKey)
    },
    newKey: makeKey,
    publish (key) {
      keys.push(key)
      signing = key
    },
    unsignedToken (audience, opts = {}) {
      return b64({ alg: 'none', typ: 'JWT' }) + '.' + b64(claims(issuer, audience, opts)) + '.'
    },
    async hmacWithPublicKey (audience, opts = {}) {
      const pem = await exportSPKI(signing.publicKey)
      const input = b64({ alg: 'HS256', typ: 'JWT', kid: signing.kid }) + '.' + b64(claims(issuer, audience, opts))
      return input + '.' + createHmac('sha256', pem).update(input).digest('base64url')
    },
    close: () => app.close()
  }
}
