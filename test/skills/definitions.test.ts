/**
 * Skills are checked when defined, each refusal a coded error naming the
 * skill and the file: frontmatter missing, malformed, misnamed or unbounded
 * (YAML alias bombs, huge blocks), paths leaving the skill (`..`, symbolic
 * links out of its folder), the extension's bounds (512 files, 16 MiB), and
 * URIs defined twice (two skills, a skill and a resource, at runtime too).
 */
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { defineResources, defineSkill, defineSkills, type SkillDefinition } from '../../lib/index.js'
import { registrationError } from '../helpers/mcp-fixtures.js'
import { serve } from '../definitions/helpers.js'
import { folderWith, skillMd } from './helpers.js'

function refused (t: Test, make: () => unknown, file: RegExp, why: RegExp, skill = /.*/): void {
  try {
    make()
    t.fail('expected FST_MCP_INVALID_SKILL')
  } catch (err) {
    const error = err as Error & { code?: string }
    t.equal(error.code, 'FST_MCP_INVALID_SKILL', error.message)
    const match = /^Invalid skill "([^"]*)" \((.*?)\): (.*)$/s.exec(error.message)
    t.ok(match !== null, `the message names the skill and the file: ${error.message}`)
    t.match(match?.[1], skill)
    t.match(match?.[2], file)
    t.match(match?.[3], why)
  }
}

const one = (files: Record<string, string | Uint8Array>, path = 'demo'): () => unknown => () => defineSkills({ [path]: { files } })

t.test('frontmatter: present, YAML, a mapping with name (= the folder) and description', async (t) => {
  refused(t, one({ 'README.md': 'x' }), /^SKILL\.md$/, /must hold a SKILL\.md/, /^demo$/)
  refused(t, one({ 'SKILL.md': '# No frontmatter\n' }), /^SKILL\.md$/, /must begin with YAML frontmatter/)
  refused(t, one({ 'SKILL.md': '---\nname: demo\ndescription: open\n' }), /SKILL\.md/, /not closed/)
  refused(t, one({ 'SKILL.md': '---\nname: [demo\n---\n' }), /SKILL\.md/, /not valid YAML/)
  refused(t, one({ 'SKILL.md': '---\nname: demo\nname: again\ndescription: d\n---\n' }), /SKILL\.md/, /not valid YAML/, /demo/)
  refused(t, one({ 'SKILL.md': '---\n- a\n- b\n---\n' }), /SKILL\.md/, /must be a YAML mapping/)
  refused(t, one({ 'SKILL.md': '---\ndescription: d\n---\n' }), /SKILL\.md/, /no "name"/)
  refused(t, one({ 'SKILL.md': skillMd('other') }), /SKILL\.md/, /"name" is "other", but the skill's directory is "demo"/)
  refused(t, one({ 'SKILL.md': skillMd('Bad_Name') }, 'Bad_Name'), /its path/, /lowercase/)
  refused(t, one({ 'SKILL.md': '---\nname: demo\n---\n' }), /SKILL\.md/, /"description"/)
  refused(t, one({ 'SKILL.md': '---\nname: demo\ndescription: d\nweight: .nan\n---\n' }), /SKILL\.md/, /JSON cannot carry/)
  const fine = defineSkills({ demo: { files: { 'SKILL.md': '\n'.repeat(0) + '---\r\nname: demo\r\ndescription: "x: y"\r\nallowed-tools: [Read]\r\n---\r\nBody\r\n' } } })
  t.ok(fine.listSkills, 'CRLF line ends are frontmatter too')
  const listed = fine.listSkills() as { skills: Array<{ frontmatter: unknown }> }
  t.strictSame(listed.skills[0]?.frontmatter, { name: 'demo', description: 'x: y', 'allowed-tools': ['Read'] }, 'every field passes through as written')
})

t.test('YAML alias bombs and huge frontmatter are refused in bounded time', async (t) => {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
  for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill('*' + String.fromCharCode(96 + i)).join(',')}]`)
  const bomb = `---\nname: demo\ndescription: d\n${lines.join('\n')}\n---\n`
  const started = process.hrtime.bigint()
  refused(t, one({ 'SKILL.md': bomb }), /SKILL\.md/, /could not be read|alias/i)
  const huge = `---\nname: demo\ndescription: ${'x'.repeat(200_000)}\n---\n`
  refused(t, one({ 'SKILL.md': huge }), /SKILL\.md/, /longer than 65536 bytes/)
  const unclosedHuge = `---\nname: demo\ndescription: d\n${'k: v\n'.repeat(3_000_000)}`
  refused(t, one({ 'SKILL.md': unclosedHuge }), /SKILL\.md/, /longer than 65536 bytes/)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  t.ok(ms < 5000, `refused in ${ms.toFixed(0)} ms, without expanding or scanning the whole document`)
})

t.test('paths stay inside the skill; definitions name one source', async (t) => {
  for (const path of ['../escape.md', 'a/../../b.md', '/abs.md', 'a//b.md', 'a/./b.md', 'nul\0.md', 'back\\slash.md']) {
    refused(t, one({ 'SKILL.md': skillMd('demo'), [path]: 'x' }), /./, /a file path/)
  }
  for (const path of ['../demo', 'a/../demo', 'a b/demo', 'a%2Fb/demo', '', 'x/']) {
    refused(t, () => defineSkills({ [path]: { files: { 'SKILL.md': skillMd('demo') } } }), /its path/, /path/)
  }
  refused(t, () => defineSkills({ demo: {} as SkillDefinition }), /its definition/, /exactly one of/)
  refused(t, () => defineSkills({ demo: { files: { 'SKILL.md': skillMd('demo') }, directory: '/tmp' } }), /its definition/, /exactly one of/)
  refused(t, () => defineSkills({ demo: { files: { 'SKILL.md': 42 as unknown as string } } }), /SKILL\.md/, /string or a Uint8Array/)
  refused(t, () => defineSkills({ demo: { frontmatter: { name: 'demo', description: 'd' }, content: undefined as never, files: { 'SKILL.md': 'x' } } }), /frontmatter/, /for dynamic skills/)
  refused(t, () => defineSkills({ demo: { content: () => ({ instructions: '' }) } }), /frontmatter/, /needs its "frontmatter"/)
  refused(t, () => defineSkills({ demo: { frontmatter: { name: 'other', description: 'd' }, content: () => ({ instructions: '' }) } }), /frontmatter/, /directory is "demo"/)
  refused(t, () => defineSkills({ demo: { frontmatter: { name: 'demo', description: 'd', when: new Date(0) as unknown as string }, content: () => ({ instructions: '' }) } }), /frontmatter/, /plain JSON data/)
  t.throws(() => defineSkills({ demo: { files: { 'SKILL.md': skillMd('demo') }, colour: 'red' } as SkillDefinition }), { code: 'FST_MCP_INVALID_DEFINITION', message: /colour/ }, 'unknown fields are refused, the known ones listed')
  const single: SkillDefinition = { files: { 'SKILL.md': skillMd('demo') } }
  t.equal(defineSkill(single), single, 'defineSkill gives the definition back (typed), for a file of its own')
  t.throws(() => defineSkill('demo' as unknown as SkillDefinition), { code: 'FST_MCP_INVALID_DEFINITION' })
})

t.test('the extension\'s bounds: 512 files and 16 MiB per skill (inclusive)', async (t) => {
  const files: Record<string, string> = { 'SKILL.md': skillMd('demo') }
  for (let i = 1; i < 512; i++) files[`f/${i}.txt`] = 'x'
  const full = defineSkills({ demo: { files } }).listSkills() as { skills: Array<{ resources: unknown[] }> }
  t.equal(full.skills[0]?.resources.length, 512, '512 files are served')
  refused(t, one({ ...files, 'f/512.txt': 'x' }), /513 files/, /at most 512 files/)
  const md = skillMd('demo')
  const exact = new Uint8Array(16 * 1024 * 1024 - Buffer.byteLength(md))
  const big = defineSkills({ demo: { files: { 'SKILL.md': md, 'big.bin': exact } } }).listSkills() as { skills: Array<{ resources: Array<{ size: number }> }> }
  t.equal(big.skills[0]?.resources.reduce((sum, r) => sum + r.size, 0), 16 * 1024 * 1024, 'exactly 16 MiB is served')
  refused(t, one({ 'SKILL.md': md, 'big.bin': new Uint8Array(exact.length + 1) }), /big\.bin/, /more than 16777216 bytes/)
})

t.test('on disk: a symbolic link out of the skill\'s folder is refused, one inside followed; dot files skipped', async (t) => {
  const outside = folderWith(t, { 'secret.txt': 'top secret' })
  const root = folderWith(t, { 'demo/SKILL.md': skillMd('demo'), 'demo/inside.md': 'in', 'demo/.git/config': 'x', 'demo/.DS_Store': 'x' })
  symlinkSync(join(root, 'demo', 'inside.md'), join(root, 'demo', 'alias.md'))
  const ok = defineSkills(root).listSkills() as { skills: Array<{ resources: Array<{ uri: string }> }> }
  t.strictSame(ok.skills[0]?.resources.map((r) => r.uri), ['skill://demo/SKILL.md', 'skill://demo/alias.md', 'skill://demo/inside.md'])
  symlinkSync(join(outside, 'secret.txt'), join(root, 'demo', 'leak.txt'))
  refused(t, () => defineSkills(root), /leak\.txt/, /symbolic link out of the skill's folder/, /^demo$/)
  const dirRoot = folderWith(t, { 'demo/SKILL.md': skillMd('demo') })
  symlinkSync(outside, join(dirRoot, 'demo', 'elsewhere'))
  refused(t, () => defineSkills(dirRoot), /elsewhere/, /symbolic link out/)
  const dangling = folderWith(t, { 'demo/SKILL.md': skillMd('demo') })
  symlinkSync(join(dangling, 'nothing'), join(dangling, 'demo', 'gone.md'))
  refused(t, () => defineSkills(dangling), /gone\.md/, /to nothing/)
  refused(t, () => defineSkills({ demo: { directory: join(root, 'missing') } }), /missing/, /cannot be read/)
  refused(t, () => defineSkills(join(root, 'missing')), /missing/, /cannot be read/)
  // A file grown past the bound is refused before it is read whole.
  const grown = folderWith(t, { 'demo/SKILL.md': skillMd('demo') })
  writeFileSync(join(grown, 'demo', 'huge.bin'), Buffer.alloc(16 * 1024 * 1024))
  refused(t, () => defineSkills(grown), /huge\.bin/, /more than 16777216 bytes/)
})

t.test('URIs are unique: two skills, a skill and a resource, at registration and at runtime', async (t) => {
  const a = defineSkills({ demo: { files: { 'SKILL.md': skillMd('demo') } } })
  const b = defineSkills({ demo: { files: { 'SKILL.md': skillMd('demo') } } })
  const twice = await registrationError({ server: { ...a, ...b }, serverInfo: { name: 's', version: '1' } })
  t.equal(twice?.code, 'FST_MCP_DUPLICATE_DEFINITION')
  t.match(twice?.message, /skill "demo" is defined twice: defineSkills at test\/skills\/definitions\.test\.ts:\d+ and defineSkills at test\/skills\/definitions\.test\.ts:\d+/)
  const clash = await registrationError({
    server: { ...defineResources({ shadow: { uri: 'skill://demo/notes.md', read: () => 'r' } }), ...defineSkills({ demo: { files: { 'SKILL.md': skillMd('demo'), 'notes.md': 'n' } } }) },
    serverInfo: { name: 's', version: '1' }
  })
  t.equal(clash?.code, 'FST_MCP_DUPLICATE_DEFINITION')
  t.match(clash?.message, /URI skill:\/\/demo\/notes\.md is defined twice: resource "shadow" .* and skill "demo"/)
  const { app } = await serve(t, { ...defineResources({ shadow: { uri: 'skill://late/notes.md', read: () => 'r' } }), ...defineSkills({}) })
  t.throws(() => app.mcp.skills.add('late', { files: { 'SKILL.md': skillMd('late'), 'notes.md': 'n' } }), { code: 'FST_MCP_DUPLICATE_DEFINITION' })
  t.throws(() => app.mcp.skills.add('bad', { files: { 'SKILL.md': skillMd('other') } }), { code: 'FST_MCP_INVALID_SKILL' }, 'runtime additions pass the same checks')
  t.strictSame(app.mcp.skills.names(), [])
})

t.test('a folder of skills that is itself a skill is refused, saying how to define it', async (t) => {
  const root = folderWith(t, { 'SKILL.md': skillMd('demo') })
  refused(t, () => defineSkills(root), /SKILL\.md/, /one skill, not a folder of skills/)
  const empty = folderWith(t, { 'notes.txt': 'x' })
  t.strictSame((defineSkills(empty).listSkills() as { skills: unknown[] }).skills, [], 'a folder without skills defines none')
})
