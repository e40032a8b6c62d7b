/**
 * Skills served like every other definition: changed at runtime through
 * fastify.mcp.skills (served from the next request, told to listen streams
 * as resource changes, since the extension has no notification of its own),
 * per-skill scopes with authorization (403 naming the scope; filterLists
 * hides what a caller cannot get, the list then private), hooks around the
 * new methods, and a hand-written module serving the skill handlers itself.
 */
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { buildCapabilities, defineSkills, defineTools, type ServerModule } from '../../lib/index.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'
import { serve } from '../definitions/helpers.js'
import { openListen, startApp } from '../streams/helpers.js'
import { dailyReport, gitWorkflow, skillMd } from './helpers.js'

t.test('fastify.mcp.skills: add, update (a new digest), disable, enable, remove; listen streams told', async (t) => {
  const { app, port } = await startApp({ server: { ...defineTools({}), ...defineSkills({ 'git-workflow': gitWorkflow }) }, limits: { listen: { keepAliveMs: 0 } } })
  t.teardown(() => app.close())
  const client = mcpClient(t, app)
  const stream = await openListen(t, port, { resourcesListChanged: true, resourceSubscriptions: ['skill://notes/SKILL.md'] })
  const next = async () => (await stream.nextMessage()).method as string

  app.mcp.skills.add('notes', { files: { 'SKILL.md': skillMd('notes', 'Take notes', 'v1\n') } })
  t.equal(await next(), 'notifications/resources/list_changed')
  t.equal(await next(), 'notifications/resources/updated', 'a subscriber of the skill\'s SKILL.md hears of it')
  const before = (await client.modern('skills/get', { uri: 'skill://notes/SKILL.md' })).json.result.skill.resources[0].digest
  app.mcp.skills.update('notes', { files: { 'SKILL.md': skillMd('notes', 'Take notes', 'v2\n') } })
  t.equal(await next(), 'notifications/resources/list_changed')
  t.equal(await next(), 'notifications/resources/updated')
  const after = (await client.modern('skills/get', { uri: 'skill://notes/SKILL.md' })).json.result.skill.resources[0].digest
  t.not(after, before, 'a changed file gets a new digest')
  t.equal((await client.modern('resources/read', { uri: 'skill://notes/SKILL.md' })).json.result.contents[0].text, skillMd('notes', 'Take notes', 'v2\n'), 'and is served under it')

  await app.mcp.skills.disable('notes')
  t.equal(await next(), 'notifications/resources/list_changed')
  t.equal(await next(), 'notifications/resources/updated', 'a hidden skill\'s files are gone: subscribers re-read')
  assertError(t, await client.modern('skills/get', { uri: 'skill://notes/SKILL.md' }), { status: 400, code: -32602, id: 1, data: { uri: 'skill://notes/SKILL.md' }, message: /No skill/ })
  assertError(t, await client.modern('resources/read', { uri: 'skill://notes/SKILL.md' }), { status: 400, code: -32602, id: 1, data: { uri: 'skill://notes/SKILL.md' }, message: /not found/ })
  t.strictSame((await client.modern('skills/list')).json.result.skills.map((s: { uri: string }) => s.uri), ['skill://git-workflow/SKILL.md'])
  t.equal(app.mcp.skills.isEnabled('notes'), false)
  await app.mcp.skills.enable('notes')
  t.equal(await next(), 'notifications/resources/list_changed')
  t.equal(await next(), 'notifications/resources/updated')
  t.strictSame(app.mcp.skills.names(), ['git-workflow', 'notes'])
  await app.mcp.skills.remove('notes')
  t.equal(await next(), 'notifications/resources/list_changed')
  t.equal(await next(), 'notifications/resources/updated')
  assertError(t, await client.modern('resources/directory/read', { uri: 'skill://notes' }), { status: 400, code: -32602, id: 1, data: { uri: 'skill://notes' }, message: /not a directory/ })
  t.throws(() => app.mcp.skills.update('notes', gitWorkflow), { code: 'FST_MCP_UNKNOWN_DEFINITION' })
})

t.test('a module without skills at registration cannot add them (the extension is not advertised)', async (t) => {
  const { app } = await serve(t, defineTools({}))
  t.throws(() => app.mcp.skills.add('notes', { files: { 'SKILL.md': skillMd('notes') } }), { code: 'FST_MCP_NOT_ADVERTISED', message: /defineSkills\(\{\}\)/ })
})

t.test('per-skill scopes: skills/get, resources/read and directory reads need them; filterLists hides the skill', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({ 'git-workflow': gitWorkflow, 'reports/daily': { ...dailyReport, scopes: ['reports:read'] } }),
    serverInfo: { name: 'auth-skills', version: '1.0.0' },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      filterLists: true,
      verifyAccessToken: (token) => ({ subject: token, scopes: token === 'reporter' ? ['reports:read'] : [] })
    }
  })
  const client = mcpClient(t, app)
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
  const list = async (token: string) => (await client.modern('skills/list', {}, as(token))).json.result
  t.strictSame((await list('reporter')).skills.map((s: { uri: string }) => s.uri), ['skill://git-workflow/SKILL.md', 'skill://reports/daily/SKILL.md'])
  const hidden = await list('guest')
  t.strictSame(hidden.skills.map((s: { uri: string }) => s.uri), ['skill://git-workflow/SKILL.md'], 'a skill the caller cannot get is not listed')
  t.equal(hidden.cacheScope, 'private', 'a filtered list is private')
  for (const [method, uri] of [['skills/get', 'skill://reports/daily/SKILL.md'], ['resources/read', 'skill://reports/daily/data/today.csv'], ['resources/directory/read', 'skill://reports/daily/data']]) {
    const denied = await client.modern(method as string, { uri }, as('guest'))
    t.equal(denied.status, 403, `${method} ${uri} needs the skill's scope`)
    t.match(String(denied.headers['www-authenticate']), /scope="reports:read"/)
    t.equal((await client.modern(method as string, { uri }, as('reporter'))).status, 200)
  }
  t.equal((await client.modern('skills/get', { uri: 'skill://git-workflow/SKILL.md' }, as('guest'))).status, 200, 'a skill without scopes needs none')
})

t.test('hooks run around skills/list, skills/get and skill reads as around any method', async (t) => {
  const seen: string[] = []
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: defineSkills({ 'git-workflow': gitWorkflow }), serverInfo: { name: 'h', version: '1' } })
  app.mcp.addHook('onRequest', (op) => { seen.push(`onRequest ${op.method}`) })
  app.mcp.addHook('onResult', (op) => { seen.push(`onResult ${op.method}`) })
  app.mcp.addHook('preHandler', (call) => { seen.push(`preHandler ${String(call.uri)}`) })
  await app.ready()
  const client = mcpClient(t, app)
  await client.modern('skills/list')
  await client.modern('skills/get', { uri: 'skill://git-workflow/SKILL.md' })
  await client.modern('resources/read', { uri: 'skill://git-workflow/SKILL.md' })
  t.strictSame(seen, [
    'onRequest skills/list', 'onResult skills/list',
    'onRequest skills/get', 'onResult skills/get',
    'onRequest resources/read', 'preHandler skill://git-workflow/SKILL.md', 'onResult resources/read'
  ])
})

t.test('a hand-written module serving the skill handlers is advertised the same way; half of them fails registration', async (t) => {
  const entry = { uri: 'skill://hand/SKILL.md', frontmatter: { name: 'hand', description: 'By hand' }, resources: 'dynamic' as const }
  const hand = {
    listResources: () => ({ resources: [] }),
    readResource: () => ({ contents: [{ uri: 'skill://hand/SKILL.md', text: '---\nname: hand\ndescription: By hand\n---\n' }] }),
    listSkills: () => ({ skills: [entry] }),
    getSkill: () => ({ skill: entry })
  } satisfies ServerModule
  t.strictSame(buildCapabilities(hand, { era: 'modern' }).extensions, { 'io.modelcontextprotocol/skills': {} }, 'no readResourceDirectory: no directoryRead')
  t.equal((buildCapabilities(hand, { era: 'legacy' }) as { extensions?: unknown }).extensions, undefined, 'the legacy era: no extension')
  const { app } = await serve(t, hand)
  const client = mcpClient(t, app)
  t.strictSame((await client.modern('skills/list')).json.result.skills, [entry])
  assertError(t, await client.modern('resources/directory/read', { uri: 'skill://hand' }), { status: 404, code: -32601, id: 1, message: /Method not found/ })
  t.throws(() => buildCapabilities({ ...hand, getSkill: undefined }, { era: 'modern' }), { code: 'FST_MCP_MISSING_HANDLER', message: /"skills" needs the handler "getSkill"/ })
  t.throws(() => buildCapabilities({ listSkills: hand.listSkills, getSkill: hand.getSkill }, { era: 'modern' }), { code: 'FST_MCP_INVALID_CAPABILITIES', message: /needs the "resources" capability/ })
})
