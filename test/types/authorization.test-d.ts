/**
 * Type-level tests for authorization: `ctx.auth`, the `authorization` option
 * (a verifier returns the token's facts or null), `authInfoOf`, and the
 * decorator. Checked by `npm run typecheck` (tsc), never run.
 */
import { expectTypeOf } from 'expect-type'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { type AuthInfo, type AuthorizationOptions, authInfoOf, type HandlerContext, InvalidTokenError, type McpCapabilitiesOptions, type ProtectedResourceMetadata, type VerifiedAccessToken } from '../../lib/index.js'

expectTypeOf<HandlerContext['auth']>().toEqualTypeOf<AuthInfo | undefined>()
expectTypeOf<AuthInfo['scopes']>().toEqualTypeOf<readonly string[]>()
expectTypeOf<AuthInfo['subject']>().toEqualTypeOf<string | undefined>()
expectTypeOf<AuthInfo['claims']>().toEqualTypeOf<Readonly<Record<string, unknown>>>()
expectTypeOf(authInfoOf).parameters.toEqualTypeOf<[FastifyRequest]>()
expectTypeOf(authInfoOf).returns.toEqualTypeOf<AuthInfo | undefined>()
expectTypeOf<McpCapabilitiesOptions['authorization']>().toEqualTypeOf<AuthorizationOptions | undefined>()
expectTypeOf(new InvalidTokenError('revoked')).toMatchTypeOf<Error>()

const jwt: AuthorizationOptions = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'], scopesSupported: ['a'], jwt: { algorithms: ['ES256'] } }
const custom: AuthorizationOptions = {
  resource: 'https://mcp.example.com/mcp',
  authorizationServers: ['https://auth.example.com'],
  verifyAccessToken: async (token: string, request: FastifyRequest): Promise<VerifiedAccessToken | null> =>
    token.length > 0 && request.headers.host !== undefined ? { subject: 's', scopes: 'a b', expiresAt: 1 } : null
}
expectTypeOf(jwt).toMatchTypeOf<AuthorizationOptions>()
expectTypeOf(custom).toMatchTypeOf<AuthorizationOptions>()
// @ts-expect-error the resource is required
const missing: AuthorizationOptions = { authorizationServers: ['https://auth.example.com'] }
void missing

declare const app: FastifyInstance
expectTypeOf(app.mcp.authorization?.metadata).toEqualTypeOf<Readonly<ProtectedResourceMetadata> | undefined>()
expectTypeOf(app.mcp.authorization?.metadataUrl).toEqualTypeOf<string | undefined>()
