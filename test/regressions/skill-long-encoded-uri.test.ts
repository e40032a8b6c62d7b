// Found by the hostile review of skill serving: a skill file's path may be
// 1024 characters, and its URI percent-encodes each segment, so a path of
// non-ASCII characters makes a URI of up to nine characters per character.
// Lookups stopped at 2048 characters, so such a file was listed in its
// skill's manifest (and a dynamic skill's folder) but answered "resource not
// found", and its host could not load the skill. Lookups now stop at the
// longest URI a skill can define (lib/definitions/skill-files.ts,
// MAX_SKILL_URI_LENGTH), and a URI one character past it finds nothing.
import t from 'tap'
import { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { serve } from '../definitions/helpers.js'
import { digest, type Manifest, skillMd } from '../skills/helpers.js'

t.test('a file whose percent-encoded URI is long is served like any other', async (t) => {
  const skillPath = 'p'.repeat(507) + '/wide'
  const wide = 'x/' + '\u4e2d'.repeat(1019) + '.md'
  const { app } = await serve(t, defineSkills({
    [skillPath]: { files: { 'SKILL.md': skillMd('wide'), [wide]: 'wide file' } },
    made: { frontmatter: { name: 'made', description: 'made per request' }, content: () => ({ instructions: '# made\n', files: { [wide]: 'made wide file' } }) }
  }), { limits: { listPageSize: 1 } })
  const client = mcpClient(t, app)
  const manifest = (await client.modern('skills/get', { uri: `skill://${skillPath}/SKILL.md` })).json.result.skill as Manifest
  const longest = manifest.resources.find((file) => file.uri.includes('%E4%B8%AD'))?.uri as string
  t.equal(longest.length, 'skill://'.length + 512 + 1 + 2 + 1019 * 9 + 3, 'the longest URI a skill can define')
  for (const [i, file] of manifest.resources.entries()) {
    const content = (await client.modern('resources/read', { uri: file.uri })).json.result?.contents?.[0]
    t.equal(content?.text === undefined ? undefined : digest(content.text), file.digest, `manifest file ${i}: read, its digest as listed`)
  }
  const folder = await client.modern('resources/directory/read', { uri: `skill://${skillPath}/x` })
  t.ok(folder.json.result.resources.length === 1 && folder.json.result.resources[0].uri === longest, 'its folder lists it')
  const madeUri = 'skill://made/' + longest.slice(`skill://${skillPath}/`.length)
  t.equal((await client.modern('resources/read', { uri: madeUri })).json.result.contents[0].text, 'made wide file', 'a dynamic skill\'s made file too')
  // Paging a folder whose children have such URIs: the sealed cursor carries the longest of them.
  const top = await client.modern('resources/directory/read', { uri: `skill://${skillPath}` })
  t.type(top.json.result.nextCursor, 'string')
  const next = await client.modern('resources/directory/read', { uri: `skill://${skillPath}`, cursor: top.json.result.nextCursor })
  t.equal(next.status, 200, 'the cursor after a long URI opens')
  const past = longest + 'x'
  for (const [method, message] of [['resources/read', /^Resource not found/], ['resources/directory/read', /is not a directory resource$/]] as const) {
    const reply = await client.modern(method, { uri: past })
    t.equal(reply.status, 400, `${method} one character past the longest: 400`)
    t.equal(reply.json.error?.code, -32602, `${method}: -32602`)
    t.match(reply.json.error?.message, message, `${method}: finds nothing`)
  }
})
