// Found by the hostile review of skill serving: a skill may list a file whose
// URI is also the folder of a skill nested in it (`a` with a file named `b`,
// and the skill `a/b`; or a file `d` and the dynamic skill `a/d`). Reading
// that URI as a folder was authorized by the file's holder (`a`), so a caller
// with `a`'s scopes alone listed the nested skill's folder: its files' URIs
// and sizes, and the dynamic skill's content(ctx) was called for it. A folder
// now needs what its innermost skill needs (lib/definitions/skill-serving.ts,
// requirementAt), whether or not a file shares its URI.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { skillMd } from '../skills/helpers.js'

const scopesOf = (token: string): string[] => token === 'none' ? [] : token.split('.').map((s) => `${s}:read`)
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
const uris = (items: Array<{ uri: string }>): string[] => items.map((item) => item.uri)

for (const filterLists of [false, true]) {
  t.test(`a file at a nested skill's root URI does not open that skill's folder (filterLists: ${filterLists})`, async (t) => {
    let calls = 0
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(mcpCapabilities, {
      server: defineSkills({
        a: { files: { 'SKILL.md': skillMd('a'), b: 'plain file b', d: 'plain file d' }, scopes: ['a:read'] },
        'a/b': { files: { 'SKILL.md': skillMd('b'), 'secret.md': 'secret' }, scopes: ['b:read'] },
        'a/d': {
          frontmatter: { name: 'd', description: 'made per request' },
          scopes: ['d:read'],
          content: () => {
            calls++
            return { instructions: '# d\n', files: { 'made.md': 'made secret' } }
          }
        }
      }),
      serverInfo: { name: 'file-at-nested-root', version: '1.0.0' },
      authorization: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://as.example.com'],
        filterLists,
        verifyAccessToken: (token) => ({ subject: token, scopes: scopesOf(token) })
      }
    })
    const client = mcpClient(t, app)
    for (const [folder, scope] of [['skill://a/b', 'b'], ['skill://a/d', 'd']] as const) {
      for (const token of ['a', scope]) {
        const refused = await client.modern('resources/directory/read', { uri: folder }, as(token))
        t.equal(refused.status, 403, `${folder} as ${token}: refused`)
        t.equal(refused.json.error?.message, `Forbidden: insufficient scope (needs ${scope}:read a:read)`, `${folder} as ${token}: both skills' scopes named`)
      }
      const both = await client.modern('resources/directory/read', { uri: folder }, as(`a.${scope}`))
      t.strictSame(uris(both.json.result.resources), [`${folder}/SKILL.md`, `${folder}/${scope === 'b' ? 'secret' : 'made'}.md`], `${folder}: listed to a caller holding both`)
      // The file sharing the URI is the enclosing skill's own: its scopes read it.
      const file = await client.modern('resources/read', { uri: folder }, as('a'))
      t.equal(file.json.result?.contents[0].text, `plain file ${scope}`, `${folder}: the file is read with a's scopes`)
    }
    t.equal(calls, 1, 'content() ran only for the caller holding both skills\' scopes')
  })
}
