/**
 * The Skills extension against real peers: the official SDK client (modern
 * era) reads skills through its generic request API, each result validated
 * by the client against the extension's schema (test/fixtures/ext-skills);
 * then the test plays a host's verification steps over the wire: reads
 * restricted to the held manifest, each file's size and SHA-256 digest
 * recomputed from the resources/read bytes, the SKILL.md frontmatter parsed
 * (with the yaml package, as a host would) and compared field by field, and
 * a skill changed on the server failing verification until its entry is
 * refreshed with skills/get.
 */
import { createHash } from 'node:crypto'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import type { StandardSchemaV1 } from '@standard-schema/spec'
import t from 'tap'
import { parse as parseYaml } from 'yaml'
import { NoteStore, notesServer } from '../../examples/server.js'
import { defineSkills, SKILLS_EXTENSION } from '../../lib/index.js'
import { skillsValidator } from '../helpers/skills-schema.js'
import { startApp } from '../streams/helpers.js'
import { dailyReport, skillMd } from './helpers.js'

interface SkillEntry { uri: string, frontmatter: Record<string, unknown>, resources: Array<{ uri: string, digest: string, size: number }> | 'dynamic' }

/**
 * The extension's schema as a Standard Schema: the SDK client validates each
 * result with it. The client consumes `resultType` as part of the modern
 * envelope before handing the result over, so it is put back as the server
 * sent it (test/skills/serving.test.ts checks the wire bytes, `resultType` included).
 */
function resultSchema<T> (name: string): StandardSchemaV1<unknown, T> {
  const validate = skillsValidator(name)
  return {
    '~standard': {
      version: 1,
      vendor: 'ext-skills-schema',
      validate: (value) => validate({ resultType: 'complete', ...(value as object) })
        ? { value: value as T }
        : { issues: (validate.errors ?? []).map((e) => ({ message: `${e.instancePath} ${e.message ?? ''}` })) }
    }
  }
}

const ListSkills = resultSchema<{ skills: SkillEntry[], nextCursor?: string }>('ListSkillsResult')
const GetSkill = resultSchema<{ skill: SkillEntry }>('GetSkillResult')
const ReadDirectory = resultSchema<{ resources: Array<{ uri: string, name: string, mimeType?: string }>, nextCursor?: string }>('ReadResourceDirectoryResult')

/** The raw bytes of a resources/read content, as a host hashes them. */
function bytesOf (content: { text?: string, blob?: string }): Buffer {
  return typeof content.text === 'string' ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob ?? '', 'base64')
}

function frontmatterOf (text: string): unknown {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text)
  return match === null ? undefined : parseYaml(match[1] as string)
}

t.test('the official SDK client lists, gets and verifies skills (modern era)', async (t) => {
  const nested = { 'SKILL.md': skillMd('refunds'), 'examples/email.md': 'Dear customer,\n', 'partial/SKILL.md': skillMd('partial') }
  const server = {
    ...notesServer(new NoteStore()),
    ...defineSkills({ 'acme/billing/refunds': { files: nested }, 'acme/billing/refunds/partial': { files: { 'SKILL.md': skillMd('partial') } }, 'reports/daily': dailyReport })
  }
  const { app, port } = await startApp({ server, limits: { listPageSize: 2 }, validate: { results: true } }, undefined, { forceCloseConnections: true })
  t.teardown(() => app.close())
  const client = new Client({ name: 'skills-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)))
  t.teardown(() => client.close())

  const caps = client.getServerCapabilities() as { resources?: unknown, extensions?: Record<string, unknown> } | undefined
  t.strictSame(caps?.extensions?.[SKILLS_EXTENSION], { directoryRead: true }, 'the client sees the extension, with directoryRead')
  t.ok(caps?.resources, 'and the resources capability')

  // A host builds its registry by paging skills/list.
  const entries: SkillEntry[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await client.request({ method: 'skills/list', params: cursor === undefined ? {} : { cursor } }, ListSkills)
    entries.push(...page.skills)
    cursor = page.nextCursor
    pages++
  } while (cursor !== undefined)
  t.equal(pages, 2, 'four skills, two per page (listPageSize)')
  t.strictSame(entries.map((e) => e.uri), ['skill://note-taking/SKILL.md', 'skill://acme/billing/refunds/SKILL.md', 'skill://acme/billing/refunds/partial/SKILL.md', 'skill://reports/daily/SKILL.md'])

  for (const held of entries) {
    const got = await client.request({ method: 'skills/get', params: { uri: held.uri } }, GetSkill)
    t.strictSame(got.skill, held, `skills/get answers the listed entry of ${held.uri}`)
    const name = held.uri.split('/').at(-2)
    t.equal(held.frontmatter.name, name, 'the last segment of the skill path is its name')
    if (held.resources === 'dynamic') {
      // Unverifiable content: the host still compares the frontmatter it reads.
      const read = await client.readResource({ uri: held.uri })
      t.strictSame(frontmatterOf((read.contents[0] as { text: string }).text), held.frontmatter, 'dynamic: frontmatter identical')
      continue
    }
    t.equal(held.resources.filter((r) => r.uri === held.uri).length, 1, 'the manifest lists SKILL.md exactly once')
    let total = 0
    for (const file of held.resources) {
      // Reads restricted to the manifest: only listed URIs are read.
      const read = await client.readResource({ uri: file.uri })
      t.equal(read.contents.length, 1)
      const bytes = bytesOf(read.contents[0] as { text?: string, blob?: string })
      t.equal(bytes.length, file.size, `${file.uri}: size`)
      t.equal('sha256:' + createHash('sha256').update(bytes).digest('hex'), file.digest, `${file.uri}: digest`)
      total += bytes.length
      if (file.uri === held.uri) t.strictSame(frontmatterOf(bytes.toString('utf8')), held.frontmatter, `${file.uri}: frontmatter identical field by field`)
    }
    t.ok(held.resources.length <= 512 && total <= 16 * 1024 * 1024, 'within the extension\'s limits')
    // The directory view of the skill's root agrees with the manifest (no unlisted file appears).
    const root = held.uri.slice(0, -'/SKILL.md'.length)
    const files: string[] = []
    const walk = async (dir: string): Promise<void> => {
      let at: string | undefined
      do {
        const page = await client.request({ method: 'resources/directory/read', params: at === undefined ? { uri: dir } : { uri: dir, cursor: at } }, ReadDirectory)
        for (const child of page.resources) {
          if (child.mimeType === 'inode/directory') await walk(child.uri)
          else files.push(child.uri)
        }
        at = page.nextCursor
      } while (at !== undefined)
    }
    await walk(root)
    t.strictSame(files.sort(), held.resources.map((r) => r.uri).sort(), `${root}: the folders hold exactly the manifest's files`)
  }

  await t.rejects(client.request({ method: 'skills/get', params: { uri: 'skill://acme/billing/chargebacks/SKILL.md' } }, GetSkill), { code: -32602 }, 'an unknown skill is -32602')
  await t.rejects(client.request({ method: 'resources/directory/read', params: { uri: 'skill://note-taking/SKILL.md' } }, ReadDirectory), { code: -32602 }, 'a file is not a directory')

  // The server changes a skill: the held entry no longer verifies; the refreshed one does.
  const held = entries[0] as SkillEntry & { resources: Array<{ uri: string, digest: string, size: number }> }
  app.mcp.skills.update('note-taking', { files: { 'SKILL.md': skillMd('note-taking', 'Take notes, the new way') } })
  const stale = bytesOf((await client.readResource({ uri: held.uri })).contents[0] as { text?: string })
  t.not('sha256:' + createHash('sha256').update(stale).digest('hex'), held.resources[0]?.digest, 'content changed since the entry was held: verification fails')
  const refreshed = await client.request({ method: 'skills/get', params: { uri: held.uri } }, GetSkill)
  const current = refreshed.skill.resources as Array<{ digest: string, size: number }>
  t.equal('sha256:' + createHash('sha256').update(stale).digest('hex'), current[0]?.digest, 'the refreshed entry describes the bytes served')
  t.equal(current.length, 1, 'the reference file is gone from the new manifest')
  t.strictSame(frontmatterOf(stale.toString('utf8')), refreshed.skill.frontmatter)
})
