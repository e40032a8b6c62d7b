/**
 * The endpoint with `authorization`, against the local authorization server,
 * in both eras: 401 (every HTTP method, before the body is read) with the
 * challenge MCP clients follow, the RFC 9728 metadata document, 403
 * `insufficient_scope` per method and per tool naming every needed scope and
 * echoing the request id, `ctx.auth` in handlers, tasks bound to the
 * principal, and tokens kept out of the logs.
 */
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import { REQUIRED_SCOPES } from '../../lib/server-module/scopes.js'
import mcpCapabilities, { type AuthorizationOptions, defineResources, defineTools, type HandlerContext, runAsTask } from '../../lib/index.js'
import { startAuthServer } from '../helpers/auth-server.js'
import { assertError, mcpClient, MODERN } from '../helpers/mcp-inject.js'
import { tasksClient } from '../tasks/helpers.js'

const RESOURCE = 'https://mcp.example.com/mcp'
const METADATA_URL = 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp'

const as = await startAuthServer()
t.teardown(() => as.close())

const seen: Array<HandlerContext['auth']> = []

function callTool (params: { name: string }, ctx: HandlerContext): unknown {
  seen.push(ctx.auth)
  if (params.name === 'slow') return runAsTask(ctx, async () => ({ content: [{ type: 'text', text: 'done' }] }))
  if (params.name === 'ask') {
    return ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } })
      .then((answer) => ({ content: [{ type: 'text', text: `hi ${String(answer.content?.name)}` }] }))
  }
  return { content: [{ type: 'text', text: `hello ${ctx.auth?.subject ?? 'nobody'}` }] }
}
// Per tool: `write` needs notes:write (what the define helpers set from `scopes`).
Object.assign(callTool, { [REQUIRED_SCOPES]: (params: { name?: unknown }) => params.name === 'write' ? ['notes:write'] : undefined })

const server = {
  listTools: () => ({ tools: [{ name: 'hello', inputSchema: { type: 'object' } }, { name: 'write', inputSchema: { type: 'object' } }] }),
  callTool,
  listPrompts: () => ({ prompts: [] }),
  getPrompt: () => ({ messages: [] })
}

async function build (t: Test, authorization: Partial<AuthorizationOptions> = {}, extra: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify(extra.logger !== undefined ? { logger: extra.logger as never } : {})
  await app.register(mcpCapabilities, {
    server,
    serverInfo: { name: 'auth-tests', version: '1.0.0' },
    tasks: true,
    authorization: {
      resource: RESOURCE,
      authorizationServers: [as.issuer],
      scopesSupported: ['notes:read', 'notes:write'],
      methodScopes: { 'prompts/get': ['prompts'] },
      ...authorization
    }
  })
  t.teardown(() => app.close())
  return app
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })
const token = async (sub: string, scope = 'notes:read'): Promise<string> => as.mint(RESOURCE, { sub, scope })

t.test('no token: 401 in every era and on every HTTP method, with the challenge', async (t) => {
  const app = await build(t)
  const mcp = mcpClient(t, app)
  const challenge = `Bearer resource_metadata="${METADATA_URL}", scope="notes:read notes:write"`
  for (const reply of [
    await mcp.modern('server/discover'),
    await mcp.initialize('2025-11-25'),
    await mcp.legacy('tools/list', {}, { protocolVersion: '2025-06-18' }),
    await mcp.send('GET'),
    await mcp.send('DELETE')
  ]) {
    assertError(t, reply, { status: 401, code: -32600, id: undefined, message: /^Unauthorized/ })
    t.equal(reply.headers['www-authenticate'], challenge)
  }
  const bad = await mcp.modern('server/discover', {}, { headers: bearer(await as.mint('https://other.example.com/mcp', { sub: 'a' })) })
  assertError(t, bad, { status: 401, code: -32600, id: undefined, message: /not issued for this resource/ })
  t.equal(bad.headers['www-authenticate'], `Bearer resource_metadata="${METADATA_URL}", error="invalid_token", error_description="The access token was not issued for this resource", scope="notes:read notes:write"`)
  const malformed = await mcp.modern('server/discover', {}, { headers: { authorization: 'Bearer a b' } })
  assertError(t, malformed, { status: 400, code: -32600, id: undefined })
  t.match(malformed.headers['www-authenticate'], /error="invalid_request"/)
})

t.test('the protected-resource metadata document (RFC 9728), open to all', async (t) => {
  const app = await build(t, { resourceName: 'Notes' })
  const response = await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource/mcp' })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json/)
  t.strictSame(response.json(), {
    resource: RESOURCE,
    authorization_servers: [as.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['notes:read', 'notes:write'],
    resource_name: 'Notes'
  })
  t.equal((await app.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).statusCode, 404, 'not at the root for a resource with a path')
  const root = Fastify()
  await root.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' }, authorization: { resource: 'https://mcp.example.com', authorizationServers: [as.issuer] } })
  t.teardown(() => root.close())
  t.equal((await root.inject({ method: 'GET', url: '/.well-known/oauth-protected-resource' })).json().resource, 'https://mcp.example.com', 'at the root for a bare origin')
})

t.test('a valid token: served in both eras, ctx.auth for handlers', async (t) => {
  const app = await build(t)
  const mcp = mcpClient(t, app)
  const alice = await token('alice')
  const discover = await mcp.modern('server/discover', {}, { headers: bearer(alice) })
  t.equal(discover.status, 200)
  t.equal(discover.json.result.cacheScope, 'private')
  seen.length = 0
  const modern = await mcp.modern('tools/call', { name: 'hello', arguments: {} }, { headers: bearer(alice) })
  t.strictSame(modern.json.result.content, [{ type: 'text', text: 'hello alice' }])
  const init = await mcp.initialize('2025-11-25', { headers: bearer(alice) })
  t.equal(init.status, 200)
  const legacy = await mcp.legacy('tools/call', { name: 'hello', arguments: {} }, { protocolVersion: '2025-11-25', headers: bearer(alice) })
  t.strictSame(legacy.json.result.content, [{ type: 'text', text: 'hello alice' }])
  t.equal(seen.length, 2)
  const auth = seen[0]
  t.equal(auth?.subject, 'alice')
  t.equal(auth?.issuer, as.issuer)
  t.strictSame(auth?.scopes, ['notes:read'])
  t.equal(typeof auth?.expiresAt, 'number')
  t.equal(auth?.claims.aud, RESOURCE)
  t.equal(auth?.token, undefined, 'no raw token unless exposeToken')
  t.ok(Object.isFrozen(auth))
})

t.test('403 insufficient_scope per tool and per method, naming every needed scope, echoing the id', async (t) => {
  const app = await build(t, { requiredScopes: ['notes:read'] })
  const mcp = mcpClient(t, app)
  const reader = await token('reader', 'notes:read')
  const write = await mcp.modern('tools/call', { name: 'write', arguments: {} }, { id: 7, headers: bearer(reader) })
  assertError(t, write, { status: 403, code: -32600, id: 7, message: /^Forbidden: insufficient scope/ })
  t.equal(write.headers['www-authenticate'],
    `Bearer resource_metadata="${METADATA_URL}", error="insufficient_scope", error_description="This operation needs the scopes notes:read notes:write", scope="notes:read notes:write"`)
  const legacyWrite = await mcp.legacy('tools/call', { name: 'write', arguments: {} }, { id: 'w', protocolVersion: '2025-11-25', headers: bearer(reader) })
  assertError(t, legacyWrite, { status: 403, code: -32600, id: 'w' })
  const prompt = await mcp.modern('prompts/get', { name: 'p' }, { id: 8, headers: bearer(reader) })
  assertError(t, prompt, { status: 403, code: -32600, id: 8 })
  t.match(prompt.headers['www-authenticate'], /scope="notes:read prompts"/)
  const writer = await token('writer', 'notes:read notes:write')
  t.equal((await mcp.modern('tools/call', { name: 'write', arguments: {} }, { headers: bearer(writer) })).status, 200)
  t.equal((await mcp.modern('tools/call', { name: 'hello', arguments: {} }, { headers: bearer(reader) })).status, 200, 'other tools need no more')
  const none = await token('none', '')
  const denied = await mcp.modern('server/discover', {}, { headers: bearer(none) })
  assertError(t, denied, { status: 403, code: -32600, id: undefined })
  t.match(denied.headers['www-authenticate'], /error="insufficient_scope".*scope="notes:read"/)
})

t.test('tasks belong to the principal that created them', async (t) => {
  const app = await build(t)
  const tasks = tasksClient(t, app)
  const alice = await token('alice')
  const created = await tasks.call('slow', {}, { headers: bearer(alice) })
  const taskId = created.json.result?.taskId as string
  t.type(taskId, 'string', 'a task was created')
  t.equal((await tasks.get(taskId, { headers: bearer(alice) })).status, 200, 'the creator sees it')
  // A refreshed token of the same subject still owns it: the owner is the principal, not the token.
  t.equal((await tasks.get(taskId, { headers: bearer(await token('alice', 'notes:read notes:write')) })).status, 200, 'the same subject with a new token')
  const bob = await tasks.get(taskId, { headers: bearer(await token('bob')) })
  t.equal(bob.status, 400)
  t.equal(bob.json.error?.code, -32602, 'another subject gets the unknown-task error')
})

t.test('tokens never reach the logs, whatever the request serializer logs', async (t) => {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _enc, done) { lines.push(String(chunk)); done() } })
  const app = await build(t, {}, {
    logger: { level: 'trace', stream, serializers: { req: (req: { method: string, headers: unknown }) => ({ method: req.method, headers: req.headers }) } }
  })
  const mcp = mcpClient(t, app)
  const alice = await token('alice')
  t.equal((await mcp.modern('tools/call', { name: 'hello', arguments: {} }, { headers: bearer(alice) })).status, 200)
  t.equal((await mcp.modern('tools/call', { name: 'hello', arguments: {} }, { headers: { authorization: 'Bearer not-a-valid-token' } })).status, 401)
  const log = lines.join('')
  t.match(log, /incoming request/, 'requests were logged with their headers')
  t.match(log, /"authorization":"\[redacted\]"/, 'the header is redacted')
  t.notMatch(log, alice, 'the valid token is not logged')
  t.notMatch(log, /not-a-valid-token/, 'nor the invalid one')
  t.equal(MODERN, '2026-07-28')
})

t.test('filterLists: a caller sees only the tools their scopes allow, and the list is private', async (t) => {
  const app = await build(t, { filterLists: true })
  const mcp = mcpClient(t, app)
  const names = (reply: { json: any }): string[] => reply.json.result.tools.map((tool: { name: string }) => tool.name)
  const reader = await mcp.modern('tools/list', {}, { headers: bearer(await token('reader', 'notes:read')) })
  t.strictSame(names(reader), ['hello'], 'write is hidden without notes:write')
  t.equal(reader.json.result.cacheScope, 'private')
  const writer = await mcp.modern('tools/list', {}, { headers: bearer(await token('writer', 'notes:read notes:write')) })
  t.strictSame(names(writer), ['hello', 'write'])
  const legacy = await mcp.legacy('tools/list', {}, { protocolVersion: '2025-11-25', headers: bearer(await token('reader', 'notes:read')) })
  t.strictSame(legacy.json.result.tools.map((tool: { name: string }) => tool.name), ['hello'], 'legacy lists too')
  t.notOk('cacheScope' in legacy.json.result, 'no modern fields in a legacy result')
  // Without filterLists every caller sees every tool (and learns from a 403 which scope to ask for).
  const open = await build(t)
  const all = await mcpClient(t, open).modern('tools/list', {}, { headers: bearer(await token('reader', 'notes:read')) })
  t.strictSame(names(all), ['hello', 'write'])
})

t.test('filterLists: resources and resource templates a caller cannot read are hidden too', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: defineResources({
      readme: { uri: 'docs://readme', read: () => '# Hi' },
      secret: { uri: 'docs://secret', scopes: ['notes:write'], read: () => 'shh' },
      note: {
        uriTemplate: 'notes://note/{id}',
        scopes: ['notes:write'],
        list: () => [{ uri: 'notes://note/1', name: 'note 1' }],
        read: ({ id }) => `note ${id}`
      },
      file: { uriTemplate: 'files://{name}', read: ({ name }) => name }
    }),
    serverInfo: { name: 'auth-tests', version: '1.0.0' },
    authorization: { resource: RESOURCE, authorizationServers: [as.issuer], scopesSupported: ['notes:read', 'notes:write'], filterLists: true }
  })
  t.teardown(() => app.close())
  const mcp = mcpClient(t, app)
  const reader = bearer(await token('reader', 'notes:read'))
  const writer = bearer(await token('writer', 'notes:read notes:write'))
  const uris = (reply: { json: any }): string[] => reply.json.result.resources.map((r: { uri: string }) => r.uri)
  const templates = (reply: { json: any }): string[] => reply.json.result.resourceTemplates.map((r: { uriTemplate: string }) => r.uriTemplate)

  t.strictSame(uris(await mcp.modern('resources/list', {}, { headers: reader })), ['docs://readme'])
  t.strictSame(uris(await mcp.modern('resources/list', {}, { headers: writer })), ['docs://readme', 'docs://secret', 'notes://note/1'])
  const readerTemplates = await mcp.modern('resources/templates/list', {}, { headers: reader })
  t.strictSame(templates(readerTemplates), ['files://{name}'], 'the scoped template is hidden')
  t.equal(readerTemplates.json.result.cacheScope, 'private', 'a filtered list is private')
  t.strictSame(templates(await mcp.modern('resources/templates/list', {}, { headers: writer })), ['notes://note/{id}', 'files://{name}'])
  const legacy = await mcp.legacy('resources/templates/list', {}, { protocolVersion: '2025-11-25', headers: reader })
  t.strictSame(templates(legacy), ['files://{name}'], 'legacy lists too')
  // Hiding is not the access control: the read itself is refused.
  assertError(t, await mcp.modern('resources/read', { uri: 'notes://note/1' }, { headers: reader }), { status: 403, code: -32600, id: 1, message: /^Forbidden: insufficient scope/ })
})

t.test('a verifier that fails is 503 with Retry-After, logged, never 401', async (t) => {
  const app = await build(t, { verifyAccessToken: () => { throw new Error('introspection endpoint down') } })
  const response = await app.inject({ method: 'POST', url: '/mcp', headers: { ...bearer('opaque-token'), 'content-type': 'application/json' }, payload: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
  t.equal(response.statusCode, 503)
  t.strictSame(response.json(), { jsonrpc: '2.0', error: { code: -32603, message: 'Service Unavailable: the access token could not be verified; try again later' } })
  t.equal(response.headers['retry-after'], '5')
  t.equal(response.headers['www-authenticate'], undefined)
})

t.test('fastify.mcp.authorization, and registration errors', async (t) => {
  const app = await build(t)
  t.equal(app.mcp.authorization?.metadataUrl, METADATA_URL)
  t.equal(app.mcp.authorization?.resource, RESOURCE)
  t.equal(app.mcp.authorization?.metadata.resource, RESOURCE)
  const open = Fastify()
  t.teardown(() => open.close())
  await open.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' } })
  t.equal(open.mcp.authorization, undefined, 'no authorization: an open endpoint')

  const prefixed = Fastify()
  t.teardown(() => prefixed.close())
  prefixed.register(async (scope) => {
    scope.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' }, authorization: { resource: RESOURCE, authorizationServers: [as.issuer] } })
  }, { prefix: '/api' })
  await t.rejects(async () => { await prefixed.ready() }, { code: 'FST_MCP_INVALID_OPTION', message: /serveMetadata/ }, 'a prefixed context cannot serve the well-known document')

  const bad = Fastify()
  t.teardown(() => bad.close())
  bad.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' }, authorization: { resource: 'nope', authorizationServers: [] } } as never)
  await t.rejects(async () => { await bad.ready() }, { code: 'FST_MCP_INVALID_OPTION', message: /authorization\.resource/ })
})

t.test('a subscriptions/listen stream ends when the token that opened it expires', async (t) => {
  const expiresAt = Date.now() / 1000 + 1
  const app = await build(t, { verifyAccessToken: () => ({ subject: 'short-lived', expiresAt }) })
  const started = Date.now()
  const params = { notifications: { toolsListChanged: true }, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} } }
  const response = await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { ...bearer('opaque'), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'subscriptions/listen', params })
  })
  t.equal(response.statusCode, 200)
  t.match(response.body, /notifications\/subscriptions\/acknowledged/, 'the stream was open')
  t.ok(Date.now() - started >= 500, 'it stayed open until the expiry')
  t.equal(app.mcp.listenStreams, 0, 'and is gone after it')
})

t.test('a requestState minted for one principal is refused from another', async (t) => {
  const app = await build(t)
  const mcp = mcpClient(t, app)
  const caps = { elicitation: {} }
  const alice = await token('alice')
  const first = await mcp.modern('tools/call', { name: 'ask', arguments: {} }, { capabilities: caps, headers: bearer(alice) })
  t.equal(first.json.result?.resultType, 'input_required', 'the handler asked a question')
  const requestState = first.json.result?.requestState as string
  const [key] = Object.keys(first.json.result?.inputRequests ?? {})
  const retry = { name: 'ask', arguments: {}, requestState, inputResponses: { [key as string]: { action: 'accept', content: { name: 'Ada' } } } }
  const bob = await mcp.modern('tools/call', retry, { capabilities: caps, headers: bearer(await token('bob')) })
  assertError(t, bob, { status: 400, code: -32602, id: 1 })
  const again = await mcp.modern('tools/call', retry, { capabilities: caps, headers: bearer(await token('alice', 'notes:read notes:write')) })
  t.strictSame(again.json.result?.content, [{ type: 'text', text: 'hi Ada' }], 'the same principal with a refreshed token may answer')
})

t.test('filterLists with runtime changes: added scoped tools are hidden and refused; disabled ones gone for everyone', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: defineTools({ hello: { handler: () => ({ content: [{ type: 'text', text: 'hi' }] }) } }),
    serverInfo: { name: 'auth-tests', version: '1.0.0' },
    authorization: { resource: RESOURCE, authorizationServers: [as.issuer], scopesSupported: ['notes:read', 'notes:write'], filterLists: true }
  })
  t.teardown(() => app.close())
  const mcp = mcpClient(t, app)
  const names = (reply: { json: any }): string[] => reply.json.result.tools.map((tool: { name: string }) => tool.name)
  const reader = bearer(await token('reader', 'notes:read'))
  const writer = bearer(await token('writer', 'notes:read notes:write'))
  app.mcp.tools.add('write', { scopes: ['notes:write'], handler: () => ({ content: [{ type: 'text', text: 'written' }] }) })
  t.strictSame(names(await mcp.modern('tools/list', {}, { headers: reader })), ['hello'], 'the added tool is hidden from a reader')
  t.strictSame(names(await mcp.modern('tools/list', {}, { headers: writer })), ['hello', 'write'])
  const refused = await mcp.modern('tools/call', { name: 'write', arguments: {} }, { headers: reader })
  t.equal(refused.status, 403, 'and its call needs the scope')
  await app.mcp.tools.disable('hello')
  t.strictSame(names(await mcp.modern('tools/list', {}, { headers: writer })), ['write'])
  t.strictSame(names(await mcp.legacy('tools/list', {}, { protocolVersion: '2025-11-25', headers: writer })), ['write'], 'legacy too')
  const gone = await mcp.modern('tools/call', { name: 'hello', arguments: {} }, { headers: writer })
  t.equal(gone.json.error?.code, -32602, 'a disabled tool is not callable')
})
