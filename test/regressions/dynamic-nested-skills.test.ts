// Guards the nesting rules (docs/skills.md: a nested skill's files, folders
// and skills/get need the scopes of every enabled skill whose folder holds
// them; manifests list only what their caller may read) for dynamic skills,
// which were tested with fixed skills only. Found here: a fixed skill nested
// in a dynamic one had its folder listed from the dynamic skill's content()
// (its own files missing); a file the dynamic skill made inside that folder
// was read without the nested skill's scopes; and a fixed skill listing files
// inside a dynamic skill's folder had them served in the dynamic skill's place,
// guarded by the fixed skill's scopes alone. Reading a URI now needs what the
// innermost skill whose folder holds it needs (lib/definitions/skill-serving.ts),
// and that overlap is refused when defined (lib/definitions/skill-nesting.ts).
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineSkills, type SkillDefinition } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { loadManifest, type Manifest, skillMd } from '../skills/helpers.js'

const AUTH = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'] }
/** The token names the scopes it grants: "handbook.payroll" grants handbook:read and payroll:read, "none" nothing. */
const scopesOf = (token: string): string[] => token === 'none' ? [] : token.split('.').map((s) => `${s}:read`)
const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })
const uris = (items: Array<{ uri: string }>): string[] => items.map((item) => item.uri)

/** A dynamic skill whose content() counts its calls and makes SKILL.md's body plus `files`. */
function counted (name: string, scopes: string[], files: Record<string, string>): { definition: SkillDefinition, calls: () => number } {
  let calls = 0
  const definition: SkillDefinition = {
    frontmatter: { name, description: `The ${name} skill, made per request` },
    scopes,
    content: () => {
      calls++
      return { instructions: `# ${name}\n`, files }
    }
  }
  return { definition, calls: () => calls }
}

/** `handbook` (fixed, handbook:read) holding `handbook/payroll` (dynamic, payroll:read), and `twin`, the same made of fixed skills only. */
function handbookWithDynamicPayroll (): { skills: Record<string, SkillDefinition>, calls: () => number } {
  const payroll = counted('payroll', ['payroll:read'], { 'rates/2027.md': 'confidential rates' })
  return {
    calls: payroll.calls,
    skills: {
      handbook: { files: { 'SKILL.md': skillMd('handbook'), 'intro.md': 'welcome' }, scopes: ['handbook:read'] },
      'handbook/payroll': payroll.definition,
      twin: { files: { 'SKILL.md': skillMd('twin'), 'intro.md': 'welcome', 'payroll/SKILL.md': skillMd('payroll'), 'payroll/rates/2027.md': 'confidential rates' }, scopes: ['handbook:read'] },
      'twin/payroll': { files: { 'SKILL.md': skillMd('payroll'), 'rates/2027.md': 'confidential rates' }, scopes: ['payroll:read'] }
    }
  }
}

async function serveSkills (t: Test, skills: Record<string, SkillDefinition>, filterLists = false) {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills(skills),
    serverInfo: { name: 'dynamic-nested', version: '1.0.0' },
    cacheHints: { results: { ttlMs: 60_000, cacheScope: 'public' } },
    authorization: { ...AUTH, filterLists, verifyAccessToken: (token) => ({ subject: token, scopes: scopesOf(token) }) }
  })
  return { app, client: mcpClient(t, app) }
}

for (const filterLists of [false, true]) {
  t.test(`a dynamic skill nested in a scoped fixed one needs both skills' scopes, refused as a fixed one is (filterLists: ${filterLists})`, async (t) => {
    const { skills, calls } = handbookWithDynamicPayroll()
    const { client } = await serveSkills(t, skills, filterLists)
    const targets: Array<[string, string]> = [
      ['skills/get', 'payroll/SKILL.md'],
      ['resources/read', 'payroll/SKILL.md'],
      ['resources/read', 'payroll/rates/2027.md'],
      ['resources/directory/read', 'payroll'],
      ['resources/directory/read', 'payroll/rates']
    ]
    for (const [method, path] of targets) {
      for (const token of ['none', 'payroll', 'handbook']) {
        const dynamic = await client.modern(method, { uri: `skill://handbook/${path}` }, as(token))
        const fixed = await client.modern(method, { uri: `skill://twin/${path}` }, as(token))
        t.equal(dynamic.status, 403, `${method} ${path} as ${token}: refused`)
        t.strictSame(dynamic.json, fixed.json, `${method} ${path} as ${token}: the same error as for the fixed twin`)
        t.equal(dynamic.headers['www-authenticate'], fixed.headers['www-authenticate'], `${method} ${path} as ${token}: the same challenge`)
      }
      t.equal(calls(), 0, `${method} ${path}: content() is not called for refused callers`)
    }
    const both = 'handbook.payroll'
    const before = calls()
    const read = await client.modern('resources/read', { uri: 'skill://handbook/payroll/rates/2027.md' }, as(both))
    t.equal(read.json.result.contents[0].text, 'confidential rates', 'with both scopes: the made file')
    t.equal(calls(), before + 1, 'one content() call for one read')
    t.strictSame(uris((await client.modern('resources/directory/read', { uri: 'skill://handbook/payroll' }, as(both))).json.result.resources),
      ['skill://handbook/payroll/SKILL.md', 'skill://handbook/payroll/rates'], 'and its folder')
    t.equal((await client.modern('skills/get', { uri: 'skill://handbook/payroll/SKILL.md' }, as(both))).json.result.skill.resources, 'dynamic')

    // The enclosing fixed skill's manifest: its own files, each of which the caller may read (a dynamic skill's are never listed).
    for (const token of ['handbook', both]) {
      const got = await client.modern('skills/get', { uri: 'skill://handbook/SKILL.md' }, as(token))
      const manifest = got.json.result.skill as Manifest
      t.strictSame(uris(manifest.resources), ['skill://handbook/SKILL.md', 'skill://handbook/intro.md'], `${token}: the handbook's own files`)
      t.equal(got.json.result.cacheScope, 'public', `${token}: the same for every caller, so the configured cache scope`)
      await loadManifest(t, client, token, manifest)
      const list = await client.modern('skills/list', {}, as(token))
      const listed = (list.json.result.skills as Manifest[]).filter((s) => s.uri.startsWith('skill://handbook/'))
      t.strictSame(listed.find((s) => s.uri === 'skill://handbook/SKILL.md'), manifest, `${token}: skills/list and skills/get agree`)
      const payrollListed = !filterLists || token === both
      t.equal(listed.some((s) => s.uri === 'skill://handbook/payroll/SKILL.md'), payrollListed, `${token}: the dynamic skill is ${payrollListed ? 'listed' : 'hidden'}`)
      const folder = await client.modern('resources/directory/read', { uri: 'skill://handbook' }, as(token))
      t.equal(uris(folder.json.result.resources).includes('skill://handbook/payroll'), payrollListed, `${token}: the dynamic skill's folder in the handbook's`)
    }
    t.equal(calls(), before + 2, 'listing the handbook calls no content()')

    const legacy = async (token: string) => await client.legacy('resources/read', { uri: 'skill://handbook/payroll/rates/2027.md' }, { protocolVersion: '2025-11-25', ...as(token) })
    const legacyFixed = await client.legacy('resources/read', { uri: 'skill://twin/payroll/rates/2027.md' }, { protocolVersion: '2025-11-25', ...as('payroll') })
    for (const token of ['payroll', 'handbook']) {
      const refused = await legacy(token)
      t.equal(refused.status, 403, `legacy resources/read as ${token}: refused`)
      if (token === 'payroll') t.strictSame(refused.json, legacyFixed.json, 'legacy: the same error as for the fixed twin')
    }
    t.equal((await legacy(both)).json.result.contents[0].text, 'confidential rates', 'legacy, with both scopes')
  })
}

for (const filterLists of [false, true]) {
  t.test(`a fixed skill nested in a dynamic one: its folder, its files and the made ones in its folder need both skills' scopes (filterLists: ${filterLists})`, async (t) => {
    const reports = counted('reports', ['reports:read'], { 'today.csv': 'day,count\n', 'audit/extra.md': 'made inside audit' })
    const { client } = await serveSkills(t, {
      reports: reports.definition,
      'reports/audit': { files: { 'SKILL.md': skillMd('audit'), 'checklist.md': 'check' }, scopes: ['audit:read'] }
    }, filterLists)
    const targets: Array<[string, string]> = [
      ['skills/get', 'skill://reports/audit/SKILL.md'],
      ['resources/read', 'skill://reports/audit/SKILL.md'],
      ['resources/read', 'skill://reports/audit/checklist.md'],
      ['resources/read', 'skill://reports/audit/extra.md'],
      ['resources/directory/read', 'skill://reports/audit']
    ]
    for (const [method, uri] of targets) {
      for (const token of ['none', 'reports', 'audit']) {
        const refused = await client.modern(method, { uri }, as(token))
        t.equal(refused.status, 403, `${method} ${uri} as ${token}: refused`)
        t.equal(refused.json.error?.message, 'Forbidden: insufficient scope (needs audit:read reports:read)', `${method} ${uri} as ${token}: both scopes named`)
      }
    }
    t.equal(reports.calls(), 0, 'content() is not called for refused callers')

    const both = 'audit.reports'
    const got = await client.modern('skills/get', { uri: 'skill://reports/audit/SKILL.md' }, as(both))
    const manifest = got.json.result.skill as Manifest
    t.strictSame(uris(manifest.resources), ['skill://reports/audit/SKILL.md', 'skill://reports/audit/checklist.md'], 'the nested skill\'s manifest')
    await loadManifest(t, client, both, manifest)
    t.equal(reports.calls(), 0, 'its files are its own: no content() call to read them')
    const folder = await client.modern('resources/directory/read', { uri: 'skill://reports/audit' }, as(both))
    t.strictSame(folder.json.result.resources, [
      { uri: 'skill://reports/audit/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: manifest.resources[0]?.size },
      { uri: 'skill://reports/audit/checklist.md', name: 'checklist.md', mimeType: 'text/markdown', size: 5 },
      { uri: 'skill://reports/audit/extra.md', name: 'extra.md', mimeType: 'text/markdown', size: 17 }
    ], 'its folder: its own files, and the one the dynamic skill makes there')
    t.equal((await client.modern('resources/read', { uri: 'skill://reports/audit/extra.md' }, as(both))).json.result.contents[0].text, 'made inside audit')

    // The dynamic encloser itself needs reports:read alone; its folder shows the nested skill's only to who may read it when filtered.
    t.equal((await client.modern('resources/read', { uri: 'skill://reports/today.csv' }, as('reports'))).status, 200, 'the encloser\'s own file with reports:read')
    for (const token of ['reports', both]) {
      const top = await client.modern('resources/directory/read', { uri: 'skill://reports' }, as(token))
      const shown = !filterLists || token === both
      t.strictSame(uris(top.json.result.resources),
        ['skill://reports/SKILL.md', ...(shown ? ['skill://reports/audit'] : []), 'skill://reports/today.csv'], `${token}: the encloser's folder`)
      const list = await client.modern('skills/list', {}, as(token))
      t.strictSame(uris(list.json.result.skills), ['skill://reports/SKILL.md', ...(shown ? ['skill://reports/audit/SKILL.md'] : [])], `${token}: skills/list`)
      t.equal(list.json.result.cacheScope, filterLists ? 'private' : 'public', `${token}: private exactly when filtered`)
    }
  })
}

t.test('a fixed skill nested in a dynamic one that makes nothing in its folder is still in the folder above', async (t) => {
  const reports = counted('reports', ['reports:read'], { 'today.csv': 'day,count\n' })
  const { client } = await serveSkills(t, {
    reports: reports.definition,
    'reports/audit': { files: { 'SKILL.md': skillMd('audit') } }
  })
  const top = await client.modern('resources/directory/read', { uri: 'skill://reports' }, as('reports'))
  t.strictSame(uris(top.json.result.resources), ['skill://reports/SKILL.md', 'skill://reports/audit', 'skill://reports/today.csv'])
  const audit = await client.modern('resources/directory/read', { uri: 'skill://reports/audit' }, as('reports'))
  t.strictSame(uris(audit.json.result.resources), ['skill://reports/audit/SKILL.md'], 'and its own folder lists its files')
  t.equal((await client.modern('resources/directory/read', { uri: 'skill://reports/audit' }, as('none'))).status, 403, 'which need the encloser\'s reports:read')
})

t.test('disabling the enclosing skill drops its scopes from the union, either way round', async (t) => {
  const { skills } = handbookWithDynamicPayroll()
  const reports = counted('reports', ['reports:read'], { 'audit/extra.md': 'made inside audit' })
  const { app, client } = await serveSkills(t, {
    ...skills,
    reports: reports.definition,
    'reports/audit': { files: { 'SKILL.md': skillMd('audit') }, scopes: ['audit:read'] }
  })
  const status = async (method: string, uri: string, token: string): Promise<number> => (await client.modern(method, { uri }, as(token))).status
  const dynamicNested: Array<[string, string]> = [['resources/read', 'skill://handbook/payroll/rates/2027.md'], ['skills/get', 'skill://handbook/payroll/SKILL.md'], ['resources/directory/read', 'skill://handbook/payroll']]
  for (const [method, uri] of dynamicNested) t.equal(await status(method, uri, 'payroll'), 403, `${method} ${uri}: the fixed handbook guards it`)
  await app.mcp.skills.disable('handbook')
  for (const [method, uri] of dynamicNested) {
    t.equal(await status(method, uri, 'payroll'), 200, `${method} ${uri}: handbook disabled, payroll:read is enough`)
    t.equal(await status(method, uri, 'handbook'), 403, `${method} ${uri}: and still needed`)
  }
  await app.mcp.skills.enable('handbook')
  t.equal(await status('resources/read', 'skill://handbook/payroll/rates/2027.md', 'payroll'), 403, 'enabled again, the handbook guards it again')

  t.equal(await status('resources/read', 'skill://reports/audit/SKILL.md', 'audit'), 403, 'the dynamic reports guards the fixed audit')
  t.equal(await status('resources/read', 'skill://reports/audit/extra.md', 'reports'), 403, 'and the fixed audit the file reports makes in its folder')
  await app.mcp.skills.disable('reports')
  t.equal(await status('resources/read', 'skill://reports/audit/SKILL.md', 'audit'), 200, 'reports disabled: audit:read is enough')
  t.equal(await status('skills/get', 'skill://reports/audit/SKILL.md', 'audit'), 200, 'for skills/get too')
  await app.mcp.skills.enable('reports')
  await app.mcp.skills.disable('reports/audit')
  t.equal(await status('resources/read', 'skill://reports/audit/extra.md', 'reports'), 200, 'audit disabled: the made file needs reports:read alone')
  t.equal(await status('resources/read', 'skill://reports/audit/extra.md', 'none'), 403, 'which it still needs')
})

t.test('a fixed skill may not list files inside a dynamic skill\'s folder: refused when defined, registered or changed', async (t) => {
  const dynamic: SkillDefinition = { frontmatter: { name: 'payroll', description: 'Made per request' }, content: () => ({ instructions: 'x' }) }
  const overlapping: SkillDefinition = { files: { 'SKILL.md': skillMd('handbook'), 'payroll/SKILL.md': skillMd('payroll') }, scopes: ['handbook:read'] }
  const refusal = { code: 'FST_MCP_INVALID_SKILL', message: /Invalid skill "handbook" \(payroll\/SKILL\.md\): the file lies in the folder of the dynamic skill "handbook\/payroll"/ }
  t.throws(() => defineSkills({ handbook: overlapping, 'handbook/payroll': dynamic }), refusal, 'in one defineSkills')
  t.throws(() => defineSkills({ 'handbook/payroll': dynamic, handbook: overlapping }), refusal, 'in either order')

  const split = Fastify()
  t.teardown(() => split.close())
  await t.rejects(async () => {
    await split.register(mcpCapabilities, {
      server: { ...defineSkills({ handbook: overlapping }), ...defineSkills({ 'handbook/payroll': dynamic }) },
      serverInfo: { name: 'dynamic-nested', version: '1.0.0' }
    })
  }, refusal, 'across groups, at registration')

  const { app, client } = await serveSkills(t, { handbook: { files: { 'SKILL.md': skillMd('handbook') } }, 'handbook/payroll': dynamic })
  t.throws(() => app.mcp.skills.update('handbook', overlapping), refusal, 'fastify.mcp.skills.update')
  await app.mcp.skills.disable('handbook/payroll')
  t.throws(() => app.mcp.skills.update('handbook', overlapping), refusal, 'even while the dynamic skill is disabled (enabling it would make the overlap)')
  await app.mcp.skills.remove('handbook/payroll')
  app.mcp.skills.update('handbook', overlapping)
  t.throws(() => app.mcp.skills.add('handbook/payroll', dynamic), refusal, 'fastify.mcp.skills.add')
  t.strictSame(app.mcp.skills.names(), ['handbook'], 'nothing was added')
  t.equal((await client.modern('resources/read', { uri: 'skill://handbook/payroll/SKILL.md' }, as('handbook'))).json.result.contents[0].text, skillMd('payroll'), 'the fixed file is served as before')

  // Nesting either way round is fine: a dynamic skill in a fixed one's folder, a fixed one in a dynamic one's.
  t.doesNotThrow(() => defineSkills({ handbook: { files: { 'SKILL.md': skillMd('handbook') } }, 'handbook/payroll': dynamic }))
  t.doesNotThrow(() => defineSkills({ payroll: dynamic, 'payroll/rates': { files: { 'SKILL.md': skillMd('rates') } } }))
})

t.test('the same rule for fixed skills: a file in a nested skill\'s folder that only the encloser lists needs the nested skill\'s scopes too', async (t) => {
  const { client } = await serveSkills(t, {
    a: { files: { 'SKILL.md': skillMd('a'), 'b/SKILL.md': skillMd('b'), 'b/extra.md': 'listed by a alone' }, scopes: ['a:read'] },
    'a/b': { files: { 'SKILL.md': skillMd('b') }, scopes: ['b:read'] }
  })
  t.equal((await client.modern('resources/read', { uri: 'skill://a/b/extra.md' }, as('a'))).status, 403, 'b\'s folder holds it: a:read alone is refused')
  t.equal((await client.modern('resources/read', { uri: 'skill://a/b/extra.md' }, as('a.b'))).json.result.contents[0].text, 'listed by a alone')
  for (const [token, files] of [['a', ['skill://a/SKILL.md']], ['a.b', ['skill://a/SKILL.md', 'skill://a/b/SKILL.md', 'skill://a/b/extra.md']]] as const) {
    const got = await client.modern('skills/get', { uri: 'skill://a/SKILL.md' }, as(token))
    t.strictSame(uris(got.json.result.skill.resources), files, `${token}: a's manifest lists what it may read`)
    t.equal(got.json.result.cacheScope, 'private', `${token}: which depends on the caller`)
    await loadManifest(t, client, token, got.json.result.skill)
  }
})
