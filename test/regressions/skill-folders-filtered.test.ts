// Guards the fourth hostile review's skills finding: with `filterLists`, a
// skill whose scopes the caller lacks is hidden from `skills/list`, but
// `resources/directory/read` of a folder above skills (a path prefix, which
// no skill owns, so it needs no scope) listed that skill's root folder,
// naming the hidden skill to any caller. A folder's children are now
// filtered like any list: each shown only to a caller who may read it.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { skillMd } from '../skills/helpers.js'

t.test('a prefix folder lists only the skills and files the caller may read', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      'acme/merger-plan': { files: { 'SKILL.md': skillMd('merger-plan'), 'board.md': 'confidential' }, scopes: ['merger:read'] },
      'acme/onboarding': { files: { 'SKILL.md': skillMd('onboarding') } },
      'open/notes': { files: { 'SKILL.md': skillMd('notes') } }
    }),
    serverInfo: { name: 'filtered-folders', version: '1.0.0' },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      filterLists: true,
      verifyAccessToken: (token) => ({ subject: token, scopes: token === 'board' ? ['merger:read'] : [] })
    }
  })
  const client = mcpClient(t, app)
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
  const children = async (uri: string, token: string): Promise<string[]> => {
    const reply = await client.modern('resources/directory/read', { uri }, as(token))
    t.equal(reply.status, 200, `${uri} as ${token}`)
    return reply.json.result.resources.map((r: { uri: string }) => r.uri)
  }
  t.strictSame((await client.modern('skills/list', {}, as('guest'))).json.result.skills.map((s: { uri: string }) => s.uri),
    ['skill://acme/onboarding/SKILL.md', 'skill://open/notes/SKILL.md'], 'the scoped skill is hidden from skills/list')
  t.strictSame(await children('skill://acme', 'guest'), ['skill://acme/onboarding'], 'and from the folder above it')
  t.strictSame(await children('skill://acme', 'board'), ['skill://acme/merger-plan', 'skill://acme/onboarding'], 'a caller holding the scope sees it')
  t.strictSame(await children('skill://acme/merger-plan', 'board'), ['skill://acme/merger-plan/SKILL.md', 'skill://acme/merger-plan/board.md'])
  t.equal((await client.modern('resources/directory/read', { uri: 'skill://acme/merger-plan' }, as('guest'))).status, 403, 'its own folder still needs the scope')
})
