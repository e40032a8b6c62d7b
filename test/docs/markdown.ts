/**
 * The repository's Markdown as the docs tests see it: README.md, CHANGELOG.md
 * and every page under docs/, each cut into its fenced blocks (with the
 * language, the line the code starts on and the HTML comment right above,
 * where a block says why a test leaves it alone).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../helpers/paths.js'

export interface Block {
  /** Path relative to the repository root, e.g. `docs/testing.md`. */
  file: string
  /** Line (1-based) of the block's first line of code. */
  line: number
  language: string
  code: string
  /** Line (1-based) of the closing fence. */
  end: number
  /** The `<!-- ... -->` comment on the line above the opening fence, if any. */
  note: string | undefined
}

function markdownUnder (folder: string): string[] {
  if (!existsSync(folder)) return []
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name))
}

/** Absolute paths of the documentation files, README first. */
export function markdownFiles (): string[] {
  const top = ['README.md', 'CHANGELOG.md'].map((name) => join(REPO_ROOT, name)).filter((file) => existsSync(file))
  return [...top, ...markdownUnder(join(REPO_ROOT, 'docs')).sort()]
}

export function relativeName (file: string): string {
  return relative(REPO_ROOT, file)
}

/** Every fenced block of one Markdown text. */
export function fencedBlocks (file: string, markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([\w-]*)\s*$/.exec(lines[i] ?? '')
    if (open === null) continue
    const start = i + 1
    let end = start
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++
    const above = (lines[i - 1] ?? '').trim()
    blocks.push({
      file,
      line: start + 1,
      end: end + 1,
      language: open[1] ?? '',
      code: lines.slice(start, end).join('\n') + '\n',
      note: /^<!--.*-->$/.test(above) ? above : undefined
    })
    i = end
  }
  return blocks
}

export function allBlocks (): Block[] {
  return markdownFiles().flatMap((file) => fencedBlocks(relativeName(file), readFileSync(file, 'utf8')))
}

/** The block right after `block` when only blank lines separate them (an answer shown for a command). */
export function followingBlock (blocks: Block[], block: Block, markdown: string): Block | undefined {
  const next = blocks[blocks.indexOf(block) + 1]
  if (next === undefined || next.file !== block.file) return undefined
  const between = markdown.split('\n').slice(block.end, next.line - 2)
  return between.every((line) => line.trim() === '') ? next : undefined
}

export const isTypeScript = (block: Block): boolean => block.language === 'ts' || block.language === 'typescript'
export const isShell = (block: Block): boolean => block.language === 'sh' || block.language === 'bash' || block.language === 'shell'
