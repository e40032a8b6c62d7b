/**
 * The Skills extension on the wire: advertised in server/discover exactly
 * when skills are defined (with the resources capability and
 * directoryRead), never in the legacy era (the extension is specified on
 * 2026-07-28 and later); skills/list and skills/get answer exact entries
 * (frontmatter as written, manifests of the bytes served), valid against the
 * extension's schema; files read through resources/read; folders through
 * resources/directory/read, paged; unknown skills, files and folders -32602.
 */
import t from 'tap'
import { defineResources, defineSkills, defineTools } from '../../lib/index.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'
import { skillsProblems } from '../helpers/skills-schema.js'
import { serve } from '../definitions/helpers.js'
import { BRANCHES_MD, dailyReport, digest, folderWith, GIT_SKILL_MD, gitWorkflow, skillMd } from './helpers.js'

const SERVER_INFO_META = { 'io.modelcontextprotocol/serverInfo': { name: 'define-test', version: '1.0.0' } }
const DAILY_MD = '---\nname: daily\ndescription: Assemble today\'s report\nmetadata:\n  owner: ops\n---\n\n# Daily\n\nUse data/today.csv.\n'
const LOGO = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255])

const GIT_ENTRY = {
  uri: 'skill://git-workflow/SKILL.md',
  frontmatter: { name: 'git-workflow', description: 'Follow the team\'s Git conventions', license: 'Apache-2.0', metadata: { version: '1.2', tags: ['git', 'review'] } },
  resources: [
    { uri: 'skill://git-workflow/SKILL.md', digest: digest(GIT_SKILL_MD), size: Buffer.byteLength(GIT_SKILL_MD) },
    { uri: 'skill://git-workflow/assets/logo.png', digest: digest(LOGO), size: LOGO.length },
    { uri: 'skill://git-workflow/references/BRANCHES.md', digest: digest(BRANCHES_MD), size: Buffer.byteLength(BRANCHES_MD) }
  ]
}
const DAILY_ENTRY = {
  uri: 'skill://reports/daily/SKILL.md',
  frontmatter: { name: 'daily', description: 'Assemble today\'s report', metadata: { owner: 'ops' } },
  resources: 'dynamic'
}

function module () {
  return { ...defineTools({}), ...defineSkills({ 'git-workflow': gitWorkflow, 'reports/daily': dailyReport }) }
}

t.test('server/discover advertises the extension and resources; legacy advertises neither extension nor its methods', async (t) => {
  const { app } = await serve(t, module())
  const client = mcpClient(t, app)
  const discover = await client.modern('server/discover')
  t.strictSame(discover.json.result.capabilities, {
    tools: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
    logging: {},
    extensions: { 'io.modelcontextprotocol/skills': { directoryRead: true } }
  })
  t.same(skillsProblems('SkillsExtensionSettings', discover.json.result.capabilities.extensions['io.modelcontextprotocol/skills']), [])
  const init = await client.initialize('2025-11-25')
  t.strictSame(init.json.result.capabilities, { tools: { listChanged: true }, resources: { listChanged: true }, logging: {} }, 'legacy: resources (skill files are ordinary resources), no extension')
  for (const method of ['skills/list', 'skills/get', 'resources/directory/read']) {
    assertError(t, await client.legacy(method, { uri: 'skill://git-workflow/SKILL.md' }, { protocolVersion: '2025-11-25' }), { status: 200, code: -32601, id: 1, message: /Method not found/ })
  }
  const read = await client.legacy('resources/read', { uri: 'skill://git-workflow/references/BRANCHES.md' }, { protocolVersion: '2025-11-25' })
  t.strictSame(read.json.result, { contents: [{ uri: 'skill://git-workflow/references/BRANCHES.md', mimeType: 'text/markdown', text: BRANCHES_MD }] }, 'legacy clients read skill files by URI')
})

t.test('no skills, no extension: a module without them answers its methods "not found"', async (t) => {
  const { app } = await serve(t, { ...defineTools({}), ...defineResources({ a: { uri: 'docs://a', read: () => 'a' } }) })
  const client = mcpClient(t, app)
  const discover = await client.modern('server/discover')
  t.equal(discover.json.result.capabilities.extensions, undefined)
  assertError(t, await client.modern('skills/list'), { status: 404, code: -32601, id: 1, message: /Method not found/ })
  assertError(t, await client.modern('resources/directory/read', { uri: 'docs://a' }), { status: 404, code: -32601, id: 1, message: /Method not found/ })
})

t.test('skills/list and skills/get: exact entries, cacheable, valid against the extension schema', async (t) => {
  const { app } = await serve(t, module(), { validate: { results: true }, cacheHints: { results: { ttlMs: 300000, cacheScope: 'public' } } })
  const client = mcpClient(t, app)
  const list = await client.modern('skills/list')
  t.strictSame(list.json.result, { skills: [GIT_ENTRY, DAILY_ENTRY], resultType: 'complete', _meta: SERVER_INFO_META, ttlMs: 300000, cacheScope: 'public' })
  t.same(skillsProblems('ListSkillsResult', list.json.result), [])
  const get = await client.modern('skills/get', { uri: 'skill://git-workflow/SKILL.md' })
  t.strictSame(get.json.result, { skill: GIT_ENTRY, resultType: 'complete', _meta: SERVER_INFO_META, ttlMs: 300000, cacheScope: 'public' })
  t.same(skillsProblems('GetSkillResult', get.json.result), [])
  const dynamic = await client.modern('skills/get', { uri: 'skill://reports/daily/SKILL.md' })
  t.strictSame(dynamic.json.result.skill, DAILY_ENTRY)
  for (const uri of ['skill://nope/SKILL.md', 'skill://git-workflow', 'skill://git-workflow/references/BRANCHES.md', 'SKILL://git-workflow/SKILL.md']) {
    assertError(t, await client.modern('skills/get', { uri }), { status: 400, code: -32602, id: 1, data: { uri }, message: /^No skill is served at / })
  }
  assertError(t, await client.modern('skills/get', {}), { status: 400, code: -32602, id: 1, message: /"uri"/ })
})

t.test('resources/read serves the bytes the manifest digests: text, binary (base64), dynamic', async (t) => {
  const { app } = await serve(t, module(), { validate: { results: true } })
  const client = mcpClient(t, app)
  const md = await client.modern('resources/read', { uri: 'skill://git-workflow/SKILL.md' })
  t.strictSame(md.json.result.contents, [{ uri: 'skill://git-workflow/SKILL.md', mimeType: 'text/markdown', text: GIT_SKILL_MD }])
  const logo = await client.modern('resources/read', { uri: 'skill://git-workflow/assets/logo.png' })
  t.strictSame(logo.json.result.contents, [{ uri: 'skill://git-workflow/assets/logo.png', mimeType: 'image/png', blob: Buffer.from(LOGO).toString('base64') }])
  const daily = await client.modern('resources/read', { uri: 'skill://reports/daily/SKILL.md' })
  t.strictSame(daily.json.result.contents, [{ uri: 'skill://reports/daily/SKILL.md', mimeType: 'text/markdown', text: DAILY_MD }])
  const csv = await client.modern('resources/read', { uri: 'skill://reports/daily/data/today.csv' })
  t.strictSame(csv.json.result.contents, [{ uri: 'skill://reports/daily/data/today.csv', mimeType: 'text/csv', text: 'day,count\nmon,3\n' }])
  for (const uri of ['skill://git-workflow/nope.md', 'skill://reports/daily/data/other.csv', 'skill://reports/daily']) {
    assertError(t, await client.modern('resources/read', { uri }), { status: 400, code: -32602, id: 1, data: { uri }, message: /Resource not found/ })
  }
})

t.test('resources/directory/read: every folder level, direct children only, paged, files are not folders', async (t) => {
  const files: Record<string, string> = { 'SKILL.md': skillMd('templates-demo') }
  for (const name of ['a', 'b', 'c', 'd', 'e']) files[`templates/${name}.md`] = `# ${name}\n`
  files['templates/regional/eu.md'] = '# EU\n'
  const { app } = await serve(t, { ...defineSkills({ 'acme/docs/templates-demo': { files }, 'reports/daily': dailyReport }) }, { limits: { listPageSize: 4 }, validate: { results: true } })
  const client = mcpClient(t, app)
  const read = async (uri: string, cursor?: string) => {
    const reply = await client.modern('resources/directory/read', cursor === undefined ? { uri } : { uri, cursor })
    t.same(skillsProblems('ReadResourceDirectoryResult', reply.json.result), [], uri)
    return reply.json.result
  }
  t.strictSame((await read('skill://acme')).resources, [{ uri: 'skill://acme/docs', name: 'docs', mimeType: 'inode/directory' }], 'a prefix folder')
  t.strictSame((await read('skill://acme/docs/templates-demo')).resources, [
    { uri: 'skill://acme/docs/templates-demo/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(files['SKILL.md'] as string) },
    { uri: 'skill://acme/docs/templates-demo/templates', name: 'templates', mimeType: 'inode/directory' }
  ])
  const first = await read('skill://acme/docs/templates-demo/templates')
  t.equal(first.resources.length, 4)
  t.type(first.nextCursor, 'string')
  const second = await read('skill://acme/docs/templates-demo/templates', first.nextCursor)
  t.strictSame([...first.resources, ...second.resources].map((r: { name: string }) => r.name), ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'regional'])
  t.equal(second.nextCursor, undefined)
  t.strictSame((await read('skill://reports/daily')).resources, [
    { uri: 'skill://reports/daily/SKILL.md', name: 'SKILL.md', mimeType: 'text/markdown', size: Buffer.byteLength(DAILY_MD) },
    { uri: 'skill://reports/daily/data', name: 'data', mimeType: 'inode/directory' }
  ], 'a dynamic skill\'s folder, from what its content makes')
  for (const uri of ['skill://acme/docs/templates-demo/SKILL.md', 'skill://acme/docs/nope', 'skill://acme/docs/templates-demo/', 'file:///etc', 'skill://reports/daily/data/today.csv']) {
    assertError(t, await client.modern('resources/directory/read', { uri }), { status: 400, code: -32602, id: 1, data: { uri }, message: /is not a directory resource/ })
  }
  for (const cursor of ['bogus', Buffer.from('d:skill://elsewhere/x').toString('base64url'), first.nextCursor + '=']) {
    assertError(t, await client.modern('resources/directory/read', { uri: 'skill://acme/docs/templates-demo/templates', cursor }), { status: 400, code: -32602, id: 1, message: /unknown cursor/ })
  }
})

t.test('skills from a folder on disk: every folder holding a SKILL.md (nested ones too), paths as URIs', async (t) => {
  const root = folderWith(t, {
    'git-workflow/SKILL.md': GIT_SKILL_MD,
    'git-workflow/references/BRANCHES.md': BRANCHES_MD,
    'acme/billing/refunds/SKILL.md': skillMd('refunds'),
    'acme/billing/refunds/examples/email.md': 'Dear customer\n',
    'acme/billing/refunds/partial/SKILL.md': skillMd('partial'),
    'notes.txt': 'not a skill'
  })
  const { app } = await serve(t, defineSkills(root, { prefix: 'team' }))
  const client = mcpClient(t, app)
  const list = (await client.modern('skills/list')).json.result.skills as Array<{ uri: string, resources: Array<{ uri: string }> }>
  t.strictSame(list.map((s) => s.uri), ['skill://team/acme/billing/refunds/SKILL.md', 'skill://team/acme/billing/refunds/partial/SKILL.md', 'skill://team/git-workflow/SKILL.md'])
  t.strictSame(list[0]?.resources.map((r) => r.uri), [
    'skill://team/acme/billing/refunds/SKILL.md',
    'skill://team/acme/billing/refunds/examples/email.md',
    'skill://team/acme/billing/refunds/partial/SKILL.md'
  ], 'a nested skill\'s files are supporting files of the skill enclosing it')
  const nested = await client.modern('resources/read', { uri: 'skill://team/acme/billing/refunds/partial/SKILL.md' })
  t.equal(nested.json.result.contents[0].text, skillMd('partial'))
})
