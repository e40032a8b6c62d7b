/**
 * Every relative link of the documentation resolves: the file or folder it
 * names exists in the repository, and an `#anchor` (within the same page or
 * into another Markdown file) names a heading there, slugged as GitHub does.
 */
import t from 'tap'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { REPO_ROOT } from '../helpers/paths.js'
import { markdownFiles, relativeName } from './markdown.js'

/** The text outside fenced blocks and inline code spans, where links live. */
function prose (markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```\s*$/gm, '').replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length))
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors (markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  const text = markdown.replace(/^```[\s\S]*?^```\s*$/gm, '')
  for (const match of text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (match[1] ?? '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

const anchorsOf = new Map<string, Set<string>>()
function anchorsIn (file: string): Set<string> {
  let anchors = anchorsOf.get(file)
  if (anchors === undefined) {
    anchors = headingAnchors(readFileSync(file, 'utf8'))
    anchorsOf.set(file, anchors)
  }
  return anchors
}

const files = markdownFiles()
t.ok(files.some((file) => relativeName(file).startsWith('docs/')), 'docs/ has pages')

let checked = 0
for (const file of files) {
  const problems: string[] = []
  const text = prose(readFileSync(file, 'utf8'))
  for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = match[1] ?? ''
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:, ...
    checked++
    const [path = '', anchor] = target.split('#', 2)
    const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path))
    if (relative(REPO_ROOT, resolved).startsWith('..')) {
      problems.push(`${target}: points outside the repository`)
      continue
    }
    if (!existsSync(resolved)) {
      problems.push(`${target}: no such file`)
      continue
    }
    if (anchor === undefined || anchor === '' || !resolved.endsWith('.md') || statSync(resolved).isDirectory()) continue
    if (!anchorsIn(resolved).has(anchor)) problems.push(`${target}: no heading with that anchor in ${relativeName(resolved)}`)
  }
  t.strictSame(problems, [], `${relativeName(file)}: every relative link resolves`)
}
t.ok(checked > 10, `${checked} relative links checked`)

t.test('anchors are slugged as GitHub does', async (t) => {
  t.strictSame([...headingAnchors('# Tasks (2026-07-28 extension)\n## `defineTools` and friends\n## Usage\n## Usage\n')],
    ['tasks-2026-07-28-extension', 'definetools-and-friends', 'usage', 'usage-1'])
})
