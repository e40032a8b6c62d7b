/**
 * Hostile input against skills: a client's URI is only looked up among the
 * URIs the skills were defined with, so traversal (`..`, percent-encoded
 * separators), other schemes, NUL, case games and oversized URIs all answer
 * -32602 and never reach a file; a 16 MiB skill is served byte for byte;
 * 10,000 skills are listed and paged, every one exactly once.
 * (Links out of a skill's folder and YAML bombs: definitions.test.ts.)
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { defineSkills, type SkillDefinition } from '../../lib/index.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'
import { serve } from '../definitions/helpers.js'
import { folderWith, skillMd } from './helpers.js'

t.test('URIs that try to leave a skill or name another find nothing', async (t) => {
  const secretRoot = folderWith(t, { 'secret/SKILL.md': skillMd('secret'), 'demo/SKILL.md': skillMd('demo'), 'demo/a b.md': 'spaced', 'demo/ref/x.md': 'x' })
  const { app } = await serve(t, defineSkills(secretRoot, { prefix: 'team' }))
  const client = mcpClient(t, app)
  t.equal((await client.modern('resources/read', { uri: 'skill://team/demo/a%20b.md' })).json.result.contents[0].text, 'spaced', 'a name with a space is served at its percent-encoded URI')
  const hostile = [
    'skill://team/demo/../secret/SKILL.md',
    'skill://team/demo/ref/../SKILL.md',
    'skill://team/demo/%2e%2e/secret/SKILL.md',
    'skill://team/demo%2Fref/x.md',
    'skill://team/demo/ref%2Fx.md',
    'skill://team/demo/ref%5cx.md',
    'skill://team/demo/a b.md',
    'skill://team/demo/SKILL.md%00',
    'skill://team/demo/SKILL.md\u0000',
    'skill://team/demo/SKILL.md?x=1',
    'skill://team/demo/SKILL.md#frag',
    'skill://team/demo//SKILL.md',
    'skill://team/demo/./SKILL.md',
    'SKILL://team/demo/SKILL.md',
    'skill://TEAM/demo/SKILL.md',
    'file://' + secretRoot + '/secret/SKILL.md',
    'https://team/demo/SKILL.md',
    'skill:team/demo/SKILL.md',
    'skill://team/demo/' + 'x/'.repeat(3000) + 'SKILL.md',
    ''
  ]
  for (const uri of hostile) {
    const read = await client.modern('resources/read', { uri })
    assertError(t, read, { status: 400, code: -32602, id: 1, data: { uri }, message: /Resource not found/ })
    assertError(t, await client.modern('skills/get', { uri }), { status: 400, code: -32602, id: 1, data: { uri }, message: /No skill is served/ })
    assertError(t, await client.modern('resources/directory/read', { uri }), { status: 400, code: -32602, id: 1, data: { uri }, message: /not a directory resource/ })
  }
  for (const uri of [42, null, ['skill://team/demo/SKILL.md'], { uri: 'x' }]) {
    const reply = await client.post({ jsonrpc: '2.0', id: 7, method: 'skills/get', params: { uri, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } },
      { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'skills/get' })
    assertError(t, reply, { status: 400, code: -32602, id: 7, message: /"uri"/ })
  }
})

t.test('a 16 MiB skill is listed and served byte for byte', async (t) => {
  const md = skillMd('big')
  const payload = Buffer.alloc(16 * 1024 * 1024 - Buffer.byteLength(md) - 10, 'abcdefghij')
  const binary = Buffer.from([0xff, 0xfe, 0, 1, 2, 3, 4, 5, 6, 7])
  const { app } = await serve(t, defineSkills({ big: { files: { 'SKILL.md': md, 'data/big.txt': payload, 'data/tail.bin': binary } } }))
  const client = mcpClient(t, app)
  const entry = (await client.modern('skills/get', { uri: 'skill://big/SKILL.md' })).json.result.skill
  t.equal(entry.resources.reduce((sum: number, r: { size: number }) => sum + r.size, 0), 16 * 1024 * 1024)
  for (const file of entry.resources as Array<{ uri: string, digest: string, size: number }>) {
    const content = (await client.modern('resources/read', { uri: file.uri })).json.result.contents[0]
    const bytes = typeof content.text === 'string' ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob, 'base64')
    t.equal(bytes.length, file.size, `${file.uri} size`)
    t.equal('sha256:' + createHash('sha256').update(bytes).digest('hex'), file.digest, `${file.uri} digest`)
  }
})

t.test('10,000 skills: listed whole and paged, each exactly once, in order; any one found by URI', async (t) => {
  const COUNT = 10_000
  const skills: Record<string, SkillDefinition> = {}
  for (let i = 0; i < COUNT; i++) skills[`team-${i % 10}/skill-${i}`] = { files: { 'SKILL.md': skillMd(`skill-${i}`), 'ref.md': `ref ${i}` } }
  const { app } = await serve(t, defineSkills(skills), { limits: { listPageSize: 500 } })
  const client = mcpClient(t, app)
  const uris: string[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const result = (await client.modern('skills/list', cursor === undefined ? {} : { cursor })).json.result
    t.ok(result.skills.length <= 500)
    uris.push(...result.skills.map((s: { uri: string }) => s.uri))
    cursor = result.nextCursor
    pages++
  } while (cursor !== undefined)
  t.equal(pages, COUNT / 500)
  t.strictSame(uris, Object.keys(skills).map((path) => `skill://${path}/SKILL.md`), 'every skill once, in definition order')
  const last = await client.modern('skills/get', { uri: 'skill://team-9/skill-9999/SKILL.md' })
  t.equal(last.json.result.skill.frontmatter.name, 'skill-9999')
  t.equal((await client.modern('resources/read', { uri: 'skill://team-9/skill-9999/ref.md' })).json.result.contents[0].text, 'ref 9999')
  const team = (await client.modern('resources/directory/read', { uri: 'skill://team-3' })).json.result
  t.equal(team.resources.length, 500, 'a prefix folder of 1,000 skills pages too')
  t.type(team.nextCursor, 'string')
  assertError(t, await client.modern('skills/list', { cursor: Buffer.from('skills:99999999').toString('base64url') + 'x' }), { status: 400, code: -32602, id: 1, message: /unknown cursor/ })
})
