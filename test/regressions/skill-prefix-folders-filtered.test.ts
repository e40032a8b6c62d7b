// Found by the hostile review of skill serving: with `filterLists`, the folder
// above a skill the caller may not get no longer listed the skill's root
// (skill-folders-filtered.test.ts), but a deeper path prefix was still shown:
// `skill://open` listed `skill://open/secret-plans` (a folder no skill holds,
// so it needed no scope) although the only skill below it was hidden, naming
// part of a hidden skill's path. A folder above skills now needs the scopes
// every skill below it needs (those they all share: none when one of them
// needs none), so filtered lists hide it from callers who could read nothing
// in it (lib/definitions/skill-serving.ts).
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { skillMd } from '../skills/helpers.js'

const scopesOf = (token: string): string[] => token === 'none' ? [] : token.split('.').map((s) => `${s}:read`)
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

t.test('a path prefix is listed only to callers who may read a skill below it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      'open/notes': { files: { 'SKILL.md': skillMd('notes') } },
      'open/secret-plans/deep/merger': { files: { 'SKILL.md': skillMd('merger') }, scopes: ['merger:read'] },
      'open/secret-plans/deep/merger/inner': { files: { 'SKILL.md': skillMd('inner') }, scopes: ['inner:read'] },
      'vault/a': { files: { 'SKILL.md': skillMd('a') }, scopes: ['vault:read', 'a:read'] },
      'vault/b': { frontmatter: { name: 'b', description: 'made per request' }, scopes: ['b:read', 'vault:read'], content: () => ({ instructions: '# b\n' }) }
    }),
    serverInfo: { name: 'prefix-folders', version: '1.0.0' },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      filterLists: true,
      verifyAccessToken: (token) => ({ subject: token, scopes: scopesOf(token) })
    }
  })
  const client = mcpClient(t, app)
  const children = async (uri: string, token: string): Promise<string[] | string> => {
    const reply = await client.modern('resources/directory/read', { uri }, as(token))
    return reply.status === 200 ? reply.json.result.resources.map((r: { uri: string }) => r.uri) : `${reply.status} ${String(reply.json.error?.message)}`
  }
  t.strictSame(await children('skill://open', 'none'), ['skill://open/notes'], 'the prefix holding only a hidden skill is not listed')
  t.strictSame(await children('skill://open', 'merger'), ['skill://open/notes', 'skill://open/secret-plans'], 'a caller who may read the skill below sees it')
  for (const uri of ['skill://open/secret-plans', 'skill://open/secret-plans/deep']) {
    t.equal(await children(uri, 'none'), '403 Forbidden: insufficient scope (needs merger:read)', `${uri}: refused, naming the scope to ask for`)
  }
  t.strictSame(await children('skill://open/secret-plans/deep', 'merger'), ['skill://open/secret-plans/deep/merger'], 'and listed with it')
  t.equal(await children('skill://vault', 'a'), '403 Forbidden: insufficient scope (needs vault:read)', 'a prefix of several skills needs the scopes they share')
  t.strictSame(await children('skill://vault', 'vault'), [], 'which show no skill its caller may not read')
  t.strictSame(await children('skill://vault', 'vault.b'), ['skill://vault/b'], 'a dynamic skill below counts too')
  t.strictSame(await children('skill://vault', 'vault.a.b'), ['skill://vault/a', 'skill://vault/b'])
})
