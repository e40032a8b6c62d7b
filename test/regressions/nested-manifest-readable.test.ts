// Guards the nested-manifest finding: since reading a nested skill's files
// needs the nested skill's own scopes (nested-skill-scopes.test.ts), the
// enclosing skill's manifest (its `skills/list` entry and `skills/get`
// answer) still listed those files to a caller holding only the enclosing
// skill's scopes. A host reads only what a manifest lists and checks each
// file's size and digest (docs/skills.md), so that caller's host failed on a
// file its manifest promised and could not load the enclosing skill at all.
// A manifest now lists only the files its caller may read, with or without
// `filterLists` (which decides only whether whole skills are hidden).
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { skillsProblems } from '../helpers/skills-schema.js'
import { folderWith, handbookWithPayroll, loadManifest, type Manifest, skillMd } from '../skills/helpers.js'

const HANDBOOK = 'skill://handbook/SKILL.md'
const PAYROLL = 'skill://handbook/payroll/SKILL.md'
const OWN_FILES = ['skill://handbook/SKILL.md', 'skill://handbook/intro.md']
const NESTED_FILES = ['skill://handbook/payroll/SKILL.md', 'skill://handbook/payroll/rates/2027.md']

for (const filterLists of [false, true]) {
  t.test(`an enclosing skill's manifest lists only the files its caller may read (filterLists: ${filterLists})`, async (t) => {
    const root = handbookWithPayroll(t)
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(mcpCapabilities, {
      server: defineSkills({
        handbook: { directory: `${root}/handbook`, scopes: ['handbook:read'] },
        'handbook/payroll': { directory: `${root}/handbook/payroll`, scopes: ['payroll:read'] }
      }),
      serverInfo: { name: 'nested-manifest', version: '1.0.0' },
      cacheHints: { results: { ttlMs: 60_000, cacheScope: 'public' } },
      authorization: {
        resource: 'https://mcp.example.com/mcp',
        authorizationServers: ['https://as.example.com'],
        filterLists,
        verifyAccessToken: (token) => ({ subject: token, scopes: token === 'hr' ? ['handbook:read', 'payroll:read'] : ['handbook:read'] })
      }
    })
    const client = mcpClient(t, app)
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

    /** The handbook's entry from skills/list and from skills/get, checked against the extension's schema. */
    const manifests = async (token: string): Promise<{ listed: Manifest, got: Manifest, listedUris: string[] }> => {
      const list = await client.modern('skills/list', {}, as(token))
      t.equal(list.status, 200, `skills/list as ${token}`)
      t.strictSame(skillsProblems('ListSkillsResult', list.json.result), [], `skills/list as ${token} fits the schema`)
      t.equal(list.json.result.cacheScope, 'private', `skills/list as ${token}: the manifests depend on the caller`)
      const got = await client.modern('skills/get', { uri: HANDBOOK }, as(token))
      t.equal(got.status, 200, `skills/get as ${token}`)
      t.strictSame(skillsProblems('GetSkillResult', got.json.result), [], `skills/get as ${token} fits the schema`)
      t.equal(got.json.result.cacheScope, 'private', `skills/get as ${token}: the manifest depends on the caller`)
      const skills = list.json.result.skills as Manifest[]
      return { listed: skills.find((s) => s.uri === HANDBOOK) as Manifest, got: got.json.result.skill, listedUris: skills.map((s) => s.uri) }
    }

    const loadAs = async (token: string, manifest: Manifest): Promise<void> => await loadManifest(t, client, token, manifest)

    const staff = await manifests('staff')
    for (const manifest of [staff.listed, staff.got]) {
      t.strictSame(manifest.resources.map((r) => r.uri), OWN_FILES, 'without payroll:read: no nested file is listed')
      await loadAs('staff', manifest)
    }
    t.strictSame(staff.listed, staff.got, 'skills/list and skills/get agree')
    t.equal(staff.listedUris.includes(PAYROLL), !filterLists, `the nested skill itself is ${filterLists ? 'hidden' : 'listed'} (filterLists: ${filterLists})`)

    const hr = await manifests('hr')
    for (const manifest of [hr.listed, hr.got]) {
      t.strictSame(manifest.resources.map((r) => r.uri), [...OWN_FILES, ...NESTED_FILES], 'with both scopes: the full manifest')
      await loadAs('hr', manifest)
    }
    t.strictSame(hr.listed, hr.got, 'skills/list and skills/get agree')
    t.ok(hr.listedUris.includes(PAYROLL), 'the nested skill is listed to a caller with its scopes')
  })
}

t.test('without a nested skill with scopes of its own, manifests are the same for everyone (and keep their cache hints)', async (t) => {
  const root = folderWith(t, {
    'handbook/SKILL.md': skillMd('handbook'),
    'handbook/payroll/SKILL.md': skillMd('payroll')
  })
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      handbook: { directory: `${root}/handbook`, scopes: ['handbook:read'] },
      'handbook/payroll': { directory: `${root}/handbook/payroll` }
    }),
    serverInfo: { name: 'nested-manifest', version: '1.0.0' },
    cacheHints: { results: { ttlMs: 60_000, cacheScope: 'public' } },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      verifyAccessToken: (token) => ({ subject: token, scopes: ['handbook:read'] })
    }
  })
  const client = mcpClient(t, app)
  const list = await client.modern('skills/list', {}, { headers: { authorization: 'Bearer staff' } })
  t.equal(list.json.result.cacheScope, 'public', 'the configured cache scope')
  t.strictSame(list.json.result.skills.find((s: Manifest) => s.uri === HANDBOOK).resources.map((r: { uri: string }) => r.uri),
    ['skill://handbook/SKILL.md', 'skill://handbook/payroll/SKILL.md'], 'a nested skill without scopes stays in its enclosing manifest')
})

t.test('each level of nesting guards its own files, and manifests follow the catalogue when a nested skill is disabled', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      a: { files: { 'SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b'), 'b/notes.md': 'b notes', 'b/c/SKILL.md': skillMd('c') } },
      'a/b': { files: { 'SKILL.md': skillMd('b'), 'notes.md': 'b notes', 'c/SKILL.md': skillMd('c') }, scopes: ['b:read'] },
      'a/b/c': { files: { 'SKILL.md': skillMd('c') }, scopes: ['c:read'] }
    }),
    serverInfo: { name: 'nested-manifest', version: '1.0.0' },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      // The token names the scopes it grants: "b.c" grants b:read and c:read, "none" nothing.
      verifyAccessToken: (token) => ({ subject: token, scopes: token === 'none' ? [] : token.split('.').map((s) => `${s}:read`) })
    }
  })
  const client = mcpClient(t, app)
  const filesOf = async (uri: string, token: string): Promise<string[]> => {
    const reply = await client.modern('skills/get', { uri }, { headers: { authorization: `Bearer ${token}` } })
    t.equal(reply.status, 200, `skills/get ${uri} as ${token}`)
    const files = (reply.json.result.skill as Manifest).resources.map((r) => r.uri)
    for (const file of files) {
      t.equal((await client.modern('resources/read', { uri: file }, { headers: { authorization: `Bearer ${token}` } })).status, 200, `${token} reads ${file}`)
    }
    return files
  }
  t.strictSame(await filesOf('skill://a/SKILL.md', 'none'), ['skill://a/SKILL.md'])
  t.strictSame(await filesOf('skill://a/SKILL.md', 'b'), ['skill://a/SKILL.md', 'skill://a/b/SKILL.md', 'skill://a/b/notes.md'])
  // c's files need b:read too, since b's folder holds them (nested-skill-scopes-union.test.ts).
  t.strictSame(await filesOf('skill://a/SKILL.md', 'c'), ['skill://a/SKILL.md'])
  t.strictSame(await filesOf('skill://a/b/SKILL.md', 'b'), ['skill://a/b/SKILL.md', 'skill://a/b/notes.md'])
  t.strictSame(await filesOf('skill://a/SKILL.md', 'b.c'), ['skill://a/SKILL.md', 'skill://a/b/SKILL.md', 'skill://a/b/c/SKILL.md', 'skill://a/b/notes.md'])
  // Disabled, a nested skill's files are its enclosing skill's alone again: read, and so listed, with that skill's scopes.
  await app.mcp.skills.disable('a/b/c')
  t.strictSame(await filesOf('skill://a/SKILL.md', 'b'), ['skill://a/SKILL.md', 'skill://a/b/SKILL.md', 'skill://a/b/c/SKILL.md', 'skill://a/b/notes.md'])
  await app.mcp.skills.disable('a/b')
  t.strictSame(await filesOf('skill://a/SKILL.md', 'none'), ['skill://a/SKILL.md', 'skill://a/b/SKILL.md', 'skill://a/b/c/SKILL.md', 'skill://a/b/notes.md'])
})
