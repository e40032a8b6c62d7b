/**
 * Every repository file that a comment in lib/ or a page of the documentation
 * names exists: a cited `lib/...`, `test/...`, `docs/...`, `bench/...`,
 * `examples/...` or `scripts/...` path, and a cited `SOMETHING.md` at the
 * root. Paths inside URLs belong to other repositories and are skipped, and
 * so are the outputs of scripts (folders listed in .gitignore).
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from '../helpers/paths.js'

const REPO_PATH = /(?<![\w./-])(?:lib|test|docs|bench|examples|scripts)\/[\w./-]*\w\.(?:ts|md|js|json|sh|html)\b/g
const ROOT_DOC = /(?<![\w./-])[A-Z][A-Z_]*\.md\b/g
/** Upper-case file names that are not this repository's: every Agent Skill folder holds a `SKILL.md`. */
const NOT_ROOT_DOCS: ReadonlySet<string> = new Set(['SKILL.md'])
const URL = /\bhttps?:\/\/\S+/g

function * filesUnder (dir: string, ext: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * filesUnder(path, ext)
    else if (entry.name.endsWith(ext)) yield path
  }
}

/** Folders .gitignore names (the outputs of scripts, e.g. bench/results). */
const IGNORED = readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8').split('\n')
  .map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#') && !line.includes('*'))

/** The cited repository paths of `text` that do not exist. */
export function missingCitations (text: string, exists: (path: string) => boolean): string[] {
  const plain = text.replace(URL, ' ')
  const cited = [...plain.matchAll(REPO_PATH)].map((m) => m[0])
    .filter((path) => !IGNORED.some((folder) => path === folder || path.startsWith(folder + '/')))
  const docs = [...plain.matchAll(ROOT_DOC)].map((m) => m[0]).filter((name) => !NOT_ROOT_DOCS.has(name))
  return [...new Set([...cited, ...docs])].filter((path) => !exists(path))
}

const sources = [
  ...filesUnder(join(REPO_ROOT, 'lib'), '.ts'),
  ...filesUnder(join(REPO_ROOT, 'docs'), '.md'),
  join(REPO_ROOT, 'README.md'),
  join(REPO_ROOT, 'CHANGELOG.md')
]

t.test('every repository path cited in lib/ and the docs exists', async (t) => {
  const exists = (path: string): boolean => existsSync(join(REPO_ROOT, path))
  const missing: string[] = []
  let cited = 0
  for (const file of sources) {
    const text = readFileSync(file, 'utf8')
    cited += [...text.replace(URL, ' ').matchAll(REPO_PATH)].length
    for (const path of missingCitations(text, exists)) missing.push(`${relative(REPO_ROOT, file)}: ${path}`)
  }
  t.ok(cited > 50, `${cited} citations read in ${sources.length} files`)
  t.strictSame(missing, [])
})

t.test('the scan finds what it should', async (t) => {
  const none = (): boolean => false
  t.strictSame(missingCitations('the caller (lib/auth/caller.ts) and DESIGN.md section 4', none), ['lib/auth/caller.ts', 'DESIGN.md'])
  t.strictSame(missingCitations('see https://github.com/o/r/blob/main/docs/gen-ai/mcp.md', none), [], 'a path in a URL is another repository\'s')
  t.strictSame(missingCitations('`bench/results/latest.json` is written by the bench', none), [], 'outputs of scripts are not in the repository')
  t.strictSame(missingCitations('a dist/lib/index.js or node_modules/x/lib/y.ts', none), [], 'only repository folders')
})
