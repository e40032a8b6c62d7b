/** Skills the skills tests serve: in memory, on disk (a temporary folder), dynamic. */
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { Test } from 'tap'
import type { SkillDefinition } from '../../lib/index.js'
import type { mcpClient } from '../helpers/mcp-inject.js'

export const GIT_SKILL_MD = '---\nname: git-workflow\ndescription: Follow the team\'s Git conventions\nlicense: Apache-2.0\nmetadata:\n  version: "1.2"\n  tags: [git, review]\n---\n\n# Git workflow\n\nRead `references/BRANCHES.md`.\n'
export const BRANCHES_MD = '# Branches\n\nOne branch per change.\n'

export const gitWorkflow: SkillDefinition = {
  files: { 'SKILL.md': GIT_SKILL_MD, 'references/BRANCHES.md': BRANCHES_MD, 'assets/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]) }
}

export const dailyReport: SkillDefinition = {
  frontmatter: { name: 'daily', description: 'Assemble today\'s report', metadata: { owner: 'ops' } },
  content: () => ({ instructions: '# Daily\n\nUse data/today.csv.\n', files: { 'data/today.csv': 'day,count\nmon,3\n' } })
}

export function digest (bytes: string | Uint8Array): string {
  return 'sha256:' + createHash('sha256').update(bytes).digest('hex')
}

/** A temporary folder holding `files` (relative path → content), removed after the test. */
export function folderWith (t: Test, files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'skills-'))
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), content)
  }
  return root
}

export function skillMd (name: string, description = `The ${name} skill`, body = `# ${name}\n`): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}`
}

/**
 * A skill folder nesting another: `handbook` (its SKILL.md and intro.md)
 * holding the skill `handbook/payroll` (its SKILL.md and rates/2027.md),
 * whose files are also the handbook's supporting files. Returns the root.
 */
export function handbookWithPayroll (t: Test): string {
  return folderWith(t, {
    'handbook/SKILL.md': skillMd('handbook'),
    'handbook/intro.md': 'welcome',
    'handbook/payroll/SKILL.md': skillMd('payroll'),
    'handbook/payroll/rates/2027.md': 'confidential rates'
  })
}

/** A skill manifest as `skills/list` and `skills/get` give it: each file's URI, size and digest. */
export interface Manifest { uri: string, resources: Array<{ uri: string, digest: string, size: number }> }

/**
 * What a host does with a manifest (docs/skills.md): reads every listed
 * file, as the caller `token` names, and checks its size and digest.
 */
export async function loadManifest (t: Test, client: ReturnType<typeof mcpClient>, token: string, manifest: Manifest): Promise<void> {
  for (const file of manifest.resources) {
    const read = await client.modern('resources/read', { uri: file.uri }, { headers: { authorization: `Bearer ${token}` } })
    t.equal(read.status, 200, `${token} reads ${file.uri}`)
    const content = read.json.result?.contents?.[0] ?? {}
    const bytes = content.text !== undefined ? Buffer.from(content.text, 'utf8') : Buffer.from(content.blob ?? '', 'base64')
    t.equal(bytes.length, file.size, `${file.uri}: size`)
    t.equal(digest(bytes), file.digest, `${file.uri}: digest`)
  }
}
