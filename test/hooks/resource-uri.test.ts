/**
 * A preHandler hook on `resources/read` may choose another URI (`call.uri`):
 * it is resolved as a client's URI would be (defined resources, templates,
 * else the raw `readResource`), and with authorization the caller must hold
 * the scopes the new target needs.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { defineResources, ErrorCode, REQUIRED_SCOPES, McpError, type AccessTokenVerifier } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

const ALIASES: Record<string, unknown> = {
  'alias://readme': 'docs://readme',
  'alias://note': 'notes://note/5',
  'alias://raw': 'raw://thing',
  'alias://secret': 'docs://secret',
  'alias://vault': 'raw://vault',
  'alias://missing': 'nothing://here',
  'alias://number': 42,
  'alias://empty': ''
}

function server (rawReads: string[]) {
  const readResource = ({ uri }: { uri: string }) => {
    rawReads.push(uri)
    if (!uri.startsWith('raw://')) throw new McpError(-32002, `Resource not found: ${uri}`, { uri })
    return { contents: [{ uri, text: `raw ${uri}` }] }
  }
  // The raw handler's own declaration: raw://vault needs the vault scope.
  Object.assign(readResource, { [REQUIRED_SCOPES]: (params: { uri?: unknown }) => params.uri === 'raw://vault' ? ['vault'] : undefined })
  return {
    ...defineResources({
      readme: { uri: 'docs://readme', read: () => '# Readme' },
      secret: { uri: 'docs://secret', scopes: ['secret'], read: () => 'shh' },
      note: { uriTemplate: 'notes://note/{id}', read: ({ id }) => `note ${id}` }
    }),
    readResource
  }
}

async function build (t: Test, extra: Record<string, unknown> = {}) {
  const rawReads: string[] = []
  const targets: string[] = []
  const app: FastifyInstance = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'uri-hooks', version: '1.0.0' }, server: server(rawReads) as any, telemetry: false, ...extra })
  app.mcp.addHook('preHandler', (call) => {
    if (call.method !== 'resources/read') return
    targets.push(`${call.target} ${call.uri}`)
    const alias = ALIASES[call.uri as string]
    if (alias !== undefined) call.uri = alias as string
  })
  await app.ready()
  return { app, rawReads, targets }
}

const text = (result: { contents: Array<{ uri: string, text?: string }> }) => result.contents.map((c) => `${c.uri}: ${c.text}`)

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: the new URI is resolved as a client's would be`, async (t) => {
    const { app, rawReads, targets } = await build(t)
    const client = injectClient(app, { era })
    t.same(text(await client.readResource('alias://readme')), ['docs://readme: # Readme'], 'a defined resource')
    t.same(text(await client.readResource('alias://note')), ['notes://note/5: note 5'], 'a template, its variables from the new URI')
    t.same(text(await client.readResource('alias://raw')), ['raw://thing: raw raw://thing'], 'the raw handler, given the new URI')
    t.same(rawReads, ['raw://thing'], 'the raw handler saw only the new URI')
    t.same(text(await client.readResource('docs://readme')), ['docs://readme: # Readme'], 'left alone, the client\'s URI is read')
    t.same(targets.slice(0, 2), ['alias://readme alias://readme', 'alias://note alias://note'], 'call.uri starts as the client\'s URI; target keeps it')
    const direct = await client.readResource('nothing://here').catch((err: unknown) => err)
    t.match(direct, { message: 'Resource not found: nothing://here' })
    t.same(await client.readResource('alias://missing').catch((err: unknown) => err), direct, 'the raw handler refusing it: the error a client reading it gets')
    await t.rejects(client.readResource('alias://number'), { code: ErrorCode.InternalError, message: 'Internal error' }, 'a URI that is not a string is a hook fault')
    await t.rejects(client.readResource('alias://empty'), { code: ErrorCode.InternalError, message: 'Internal error' })
  })
}

t.test('a defined resource no one serves answers resource-not-found for the new URI', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'uri-hooks', version: '1.0.0' }, server: defineResources({ readme: { uri: 'docs://readme', read: () => 'x' } }), telemetry: false })
  app.mcp.addHook('preHandler', (call) => { if (call.uri === 'docs://readme') call.uri = 'docs://gone' })
  await app.ready()
  for (const era of ['legacy', 'modern'] as const) {
    const client = injectClient(app, { era })
    const direct = await client.readResource('docs://gone').catch((err: unknown) => err)
    t.match(direct, { message: /Resource not found: docs:\/\/gone/ })
    t.same(await client.readResource('docs://readme').catch((err: unknown) => err), direct, `${era}: the error a client reading it gets`)
  }
})

t.test('authorization: the new target\'s scopes are checked (defined and raw declarations)', async (t) => {
  const verify: AccessTokenVerifier = (token) => token === 'plain' ? { subject: 'pat', scopes: '' } : token === 'trusted' ? { subject: 'ann', scopes: 'secret vault' } : null
  const { app } = await build(t, { authorization: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'], verifyAccessToken: verify } })
  for (const era of ['legacy', 'modern'] as const) {
    const plain = injectClient(app, { era, headers: { authorization: 'Bearer plain' } })
    const trusted = injectClient(app, { era, headers: { authorization: 'Bearer trusted' } })
    for (const alias of ['alias://secret', 'alias://vault']) {
      const denied = await plain.readResource(alias).catch((err: unknown) => err)
      t.match(denied, { code: ErrorCode.InvalidRequest, message: /insufficient scope \(needs (secret|vault)\)/ }, `${era}: ${alias} refused without the scope`)
    }
    t.same(text(await trusted.readResource('alias://secret')), ['docs://secret: shh'], `${era}: served with the scope`)
    t.same(text(await trusted.readResource('alias://vault')), ['raw://vault: raw raw://vault'])
    t.same(text(await plain.readResource('alias://readme')), ['docs://readme: # Readme'], `${era}: a target needing nothing is served`)
  }
})
