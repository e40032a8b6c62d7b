/**
 * The official SDK client (@modelcontextprotocol/client 2.4.0) with an OAuth
 * provider (client credentials) against a protected endpoint, in both eras:
 * from the 401 it finds the protected-resource metadata, then the local
 * authorization server, obtains a token for this resource (RFC 8707
 * `resource`), and lists and calls tools. A call needing a scope its token
 * lacks gets 403 `insufficient_scope`; the client steps up (a new token with
 * the union of scopes) and the call succeeds, or fails when the
 * authorization server will not grant it.
 */
import { Client, ClientCredentialsProvider, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import { REQUIRED_SCOPES } from '../../lib/server-module/scopes.js'
import mcpCapabilities, { type HandlerContext } from '../../lib/index.js'
import { startAuthServer } from '../helpers/auth-server.js'
import { freePort } from '../helpers/server-process.js'

const as = await startAuthServer({
  clients: {
    robot: { secret: 'robot-secret', scopes: ['notes:read', 'notes:write'] },
    reader: { secret: 'reader-secret', scopes: ['notes:read'] }
  }
})
t.teardown(() => as.close())

function callTool (params: { name: string, arguments?: { text?: string } }, ctx: HandlerContext): unknown {
  if (params.name === 'whoami') return { content: [{ type: 'text', text: `${ctx.auth?.clientId} ${ctx.auth?.scopes.join(' ')}` }] }
  return { content: [{ type: 'text', text: `added ${params.arguments?.text ?? ''}` }] }
}
Object.assign(callTool, { [REQUIRED_SCOPES]: (params: { name?: unknown }) => params.name === 'add_note' ? ['notes:write'] : undefined })

const port = await freePort()
const resource = `http://127.0.0.1:${port}/mcp`
const app: FastifyInstance = Fastify()
await app.register(mcpCapabilities, {
  server: {
    listTools: () => ({
      tools: [
        { name: 'whoami', inputSchema: { type: 'object' } },
        { name: 'add_note', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }
      ]
    }),
    callTool
  },
  serverInfo: { name: 'protected-notes', version: '1.0.0' },
  authorization: {
    resource,
    authorizationServers: [as.issuer],
    scopesSupported: ['notes:read', 'notes:write'],
    // The 401's scope hint: a fresh client asks for notes:read only, and steps up for add_note.
    requiredScopes: ['notes:read']
  }
})
await app.listen({ host: '127.0.0.1', port })
t.teardown(() => app.close())

const eras: Array<{ name: string, options: ClientOptions }> = [
  { name: 'legacy (2025-11-25)', options: { versionNegotiation: { mode: 'legacy' } } },
  { name: 'auto (lands modern)', options: { versionNegotiation: { mode: 'auto' } } },
  { name: 'pinned 2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } }
]

for (const era of eras) {
  t.test(era.name, async (t) => {
    const before = { ...as.fetches }
    const provider = new ClientCredentialsProvider({ clientId: 'robot', clientSecret: 'robot-secret', expectedIssuer: as.issuer })
    const client = new Client({ name: 'sdk-auth-test', version: '1.0.0' }, era.options)
    t.teardown(() => client.close())
    await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }))
    t.equal(as.lastTokenRequest?.get('resource'), resource, 'the token was requested for this resource (RFC 8707)')
    t.equal(as.lastTokenRequest?.get('scope'), 'notes:read', 'with the scope the 401 hinted at')
    t.ok(as.fetches.token > before.token, 'a token was obtained')
    const { tools } = await client.listTools()
    t.strictSame(tools.map((tool) => tool.name), ['whoami', 'add_note'])
    const who = await client.callTool({ name: 'whoami', arguments: {} })
    t.strictSame(who.content, [{ type: 'text', text: 'robot notes:read' }], 'ctx.auth names the client and its scopes')
    const tokensBefore = as.fetches.token
    const added = await client.callTool({ name: 'add_note', arguments: { text: 'hi' } })
    t.strictSame(added.content, [{ type: 'text', text: 'added hi' }], 'after a 403 the client stepped up and the call succeeded')
    t.equal(as.fetches.token, tokensBefore + 1, 'one new token for the step-up')
    t.equal(as.lastTokenRequest?.get('scope')?.split(' ').sort().join(' '), 'notes:read notes:write', 'asked for the union of scopes')
    const again = await client.callTool({ name: 'whoami', arguments: {} })
    t.strictSame(again.content, [{ type: 'text', text: 'robot notes:read notes:write' }])
  })
}

t.test('a client the authorization server will not give the scope to: the call fails with 403', async (t) => {
  const provider = new ClientCredentialsProvider({ clientId: 'reader', clientSecret: 'reader-secret', expectedIssuer: as.issuer })
  const client = new Client({ name: 'sdk-auth-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  t.teardown(() => client.close())
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider: provider }))
  const err = await client.callTool({ name: 'add_note', arguments: { text: 'x' } }).then(() => null, (e: unknown) => e)
  t.ok(err instanceof Error, 'refused')
  t.match(String((err as Error)?.message), /403|insufficient_scope|scope/i)
})

t.test('without credentials the client cannot connect', async (t) => {
  const client = new Client({ name: 'sdk-auth-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } })
  t.teardown(() => client.close())
  const err = await client.connect(new StreamableHTTPClientTransport(new URL(resource))).then(() => null, (e: unknown) => e)
  t.ok(err instanceof Error, 'connect fails on the 401')
})
