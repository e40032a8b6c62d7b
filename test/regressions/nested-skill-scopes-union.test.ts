// Guards the nested-scopes finding: a file (or folder) of nested skills
// needed only its innermost skill's scopes, so a skill nested without scopes
// of its own in a skill with scopes (`handbook/public` in `handbook`) was
// readable by anyone although its files are the handbook's supporting files
// too, and a caller holding only a nested skill's scopes read files inside
// the enclosing skill's folder without the enclosing skill's. Reading them,
// listing their folders and `skills/get` now need the union of the scopes of
// every enabled skill whose folder holds them (docs/skills.md), and each
// manifest lists exactly the files its caller may read.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { folderWith, loadManifest, type Manifest, skillMd } from '../skills/helpers.js'

const AUTH = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'] }
/** The token names the scopes it grants: "a.c" grants a:read and c:read, "none" nothing. */
const scopesOf = (token: string): string[] => token === 'none' ? [] : token.split('.').map((s) => `${s}:read`)
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

t.test('a nested skill needs its enclosing skills\' scopes too, with scopes of its own or without', async (t) => {
  const root = folderWith(t, {
    'handbook/SKILL.md': skillMd('handbook'),
    'handbook/intro.md': 'welcome',
    'handbook/public/SKILL.md': skillMd('public'),
    'handbook/public/faq/q1.md': 'inside the handbook',
    'handbook/payroll/SKILL.md': skillMd('payroll'),
    'handbook/payroll/rates/2027.md': 'confidential rates'
  })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      handbook: { directory: `${root}/handbook`, scopes: ['handbook:read'] },
      'handbook/public': { directory: `${root}/handbook/public` },
      'handbook/payroll': { directory: `${root}/handbook/payroll`, scopes: ['payroll:read'] }
    }),
    serverInfo: { name: 'nested-scopes-union', version: '1.0.0' },
    authorization: { ...AUTH, verifyAccessToken: (token) => ({ subject: token, scopes: scopesOf(token) }) }
  })
  const client = mcpClient(t, app)
  const status = async (method: string, uri: string, token: string): Promise<number> => (await client.modern(method, { uri }, as(token))).status

  const publicOnes: Array<[string, string]> = [
    ['skills/get', 'skill://handbook/public/SKILL.md'],
    ['resources/read', 'skill://handbook/public/SKILL.md'],
    ['resources/read', 'skill://handbook/public/faq/q1.md'],
    ['resources/directory/read', 'skill://handbook/public'],
    ['resources/directory/read', 'skill://handbook/public/faq']
  ]
  for (const [method, uri] of publicOnes) {
    t.equal(await status(method, uri, 'none'), 403, `${method} ${uri}: a scope-less nested skill keeps its encloser's handbook:read`)
    t.equal(await status(method, uri, 'payroll'), 403, `${method} ${uri}: another nested skill's scopes are not the encloser's`)
    t.equal(await status(method, uri, 'handbook'), 200, `${method} ${uri} with handbook:read`)
  }
  const payrollOnes: Array<[string, string]> = [
    ['skills/get', 'skill://handbook/payroll/SKILL.md'],
    ['resources/read', 'skill://handbook/payroll/SKILL.md'],
    ['resources/read', 'skill://handbook/payroll/rates/2027.md'],
    ['resources/directory/read', 'skill://handbook/payroll'],
    ['resources/directory/read', 'skill://handbook/payroll/rates']
  ]
  for (const [method, uri] of payrollOnes) {
    t.equal(await status(method, uri, 'payroll'), 403, `${method} ${uri}: the nested skill's scopes alone are not enough`)
    t.equal(await status(method, uri, 'handbook'), 403, `${method} ${uri}: nor the encloser's alone`)
    t.equal(await status(method, uri, 'handbook.payroll'), 200, `${method} ${uri} with both`)
  }
  const read = await client.modern('resources/read', { uri: 'skill://handbook/public/faq/q1.md' }, as('handbook'))
  t.equal(read.json.result.contents[0].text, 'inside the handbook', 'served as before to a caller with the scopes')
})

for (const filterLists of [false, true]) {
  t.test(`three levels: each caller's manifests list exactly what it may read (filterLists: ${filterLists})`, async (t) => {
    const root = folderWith(t, {
      'a/SKILL.md': skillMd('a'),
      'a/b/SKILL.md': skillMd('b'),
      'a/b/notes.md': 'b notes',
      'a/b/c/SKILL.md': skillMd('c'),
      'a/b/c/data/x.csv': 'x,1\n'
    })
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(mcpCapabilities, {
      server: defineSkills({
        a: { directory: `${root}/a`, scopes: ['a:read'] },
        'a/b': { directory: `${root}/a/b` },
        'a/b/c': { directory: `${root}/a/b/c`, scopes: ['c:read'] }
      }),
      serverInfo: { name: 'nested-scopes-union', version: '1.0.0' },
      authorization: { ...AUTH, filterLists, verifyAccessToken: (token) => ({ subject: token, scopes: scopesOf(token) }) }
    })
    const client = mcpClient(t, app)
    const A = 'skill://a/SKILL.md'
    const B = 'skill://a/b/SKILL.md'
    const C = 'skill://a/b/c/SKILL.md'
    const B_FILES = [B, 'skill://a/b/c/SKILL.md', 'skill://a/b/c/data/x.csv', 'skill://a/b/notes.md']
    const C_FILES = [C, 'skill://a/b/c/data/x.csv']
    const full: Record<string, string[]> = { [A]: [A, ...B_FILES], [B]: B_FILES, [C]: C_FILES }
    // What each caller may get, and the files each of those manifests lists: c's files need a:read and c:read.
    const expected: Record<string, Record<string, string[]>> = {
      none: {},
      c: {},
      a: { [A]: [A, B, 'skill://a/b/notes.md'], [B]: [B, 'skill://a/b/notes.md'] },
      'a.c': full
    }

    for (const [token, manifests] of Object.entries(expected)) {
      const list = await client.modern('skills/list', {}, as(token))
      t.equal(list.status, 200, `skills/list as ${token}`)
      const listed = new Map((list.json.result.skills as Manifest[]).map((s) => [s.uri, s]))
      if (filterLists) t.strictSame([...listed.keys()].sort(), Object.keys(manifests).sort(), `${token} is listed only the skills it may get`)
      for (const skill of [A, B, C]) {
        const got = await client.modern('skills/get', { uri: skill }, as(token))
        const files = manifests[skill]
        if (files === undefined) {
          t.equal(got.status, 403, `${token} may not get ${skill}`)
          continue
        }
        t.equal(got.status, 200, `${token} gets ${skill}`)
        const manifest = got.json.result.skill as Manifest
        t.strictSame(manifest.resources.map((r) => r.uri), files, `${token}: ${skill} lists exactly what it may read`)
        t.strictSame(listed.get(skill)?.resources, manifest.resources, `${token}: skills/list and skills/get agree on ${skill}`)
        // What a host does: read every listed file and check its size and digest; the unlisted ones are refused.
        await loadManifest(t, client, token, manifest)
        for (const uri of (full[skill] as string[]).filter((f) => !files.includes(f))) {
          t.equal((await client.modern('resources/read', { uri }, as(token))).status, 403, `${token} may not read ${uri}, which ${skill} does not list to it`)
        }
      }
    }

    // Folders: the middle skill's needs a:read; the innermost's a:read and c:read, and it is hidden from a's listing when filtered.
    const folder = async (uri: string, token: string) => await client.modern('resources/directory/read', { uri }, as(token))
    t.equal((await folder('skill://a/b', 'none')).status, 403, 'the scope-less middle skill\'s folder needs a:read')
    t.equal((await folder('skill://a/b', 'c')).status, 403, 'c:read is not a:read')
    t.equal((await folder('skill://a/b/c/data', 'c')).status, 403, 'the innermost folder needs a:read too')
    t.equal((await folder('skill://a/b/c/data', 'a')).status, 403, 'and c:read')
    t.equal((await folder('skill://a/b/c/data', 'a.c')).status, 200, 'with both')
    const middle = await folder('skill://a/b', 'a')
    t.equal(middle.status, 200, 'a:read lists the middle skill\'s folder')
    t.strictSame(middle.json.result.resources.map((r: { uri: string }) => r.uri),
      filterLists ? [B, 'skill://a/b/notes.md'] : [B, 'skill://a/b/c', 'skill://a/b/notes.md'],
      `the innermost skill's folder is ${filterLists ? 'hidden from' : 'shown to'} a caller without c:read`)
  })
}

t.test('a disabled enclosing skill no longer guards the skills nested in it', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      a: { files: { 'SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b'), 'b/notes.md': 'b notes' }, scopes: ['a:read'] },
      'a/b': { files: { 'SKILL.md': skillMd('b'), 'notes.md': 'b notes' }, scopes: ['b:read'] }
    }),
    serverInfo: { name: 'nested-scopes-union', version: '1.0.0' },
    authorization: { ...AUTH, verifyAccessToken: (token) => ({ subject: token, scopes: scopesOf(token) }) }
  })
  const client = mcpClient(t, app)
  const status = async (method: string, uri: string, token: string): Promise<number> => (await client.modern(method, { uri }, as(token))).status
  t.equal(await status('resources/read', 'skill://a/b/notes.md', 'b'), 403, 'enabled, a guards it')
  t.equal(await status('skills/get', 'skill://a/b/SKILL.md', 'b'), 403, 'and the nested skill itself')
  await app.mcp.skills.disable('a')
  t.equal(await status('resources/read', 'skill://a/b/notes.md', 'b'), 200, 'disabled, only b:read')
  t.equal(await status('skills/get', 'skill://a/b/SKILL.md', 'b'), 200, 'for the nested skill too')
  t.equal(await status('resources/read', 'skill://a/b/notes.md', 'none'), 403, 'which it still needs')
  await app.mcp.skills.enable('a')
  t.equal(await status('resources/read', 'skill://a/b/notes.md', 'b'), 403, 'enabled again, a guards it again')
})
