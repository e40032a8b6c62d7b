/**
 * A fresh clone stands alone: no source, test, bench, example or CI file reads
 * data from a folder beside the repository (the spec schemas are vendored in
 * test/fixtures/mcp-spec).
 */
import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT, SPEC_DIR } from '../helpers/paths.js'

// spelled in pieces so this file does not match itself
const FORBIDDEN = ['..' + '/shared', 'MCP_' + 'SHARED']
const ROOTS = ['lib', 'test', 'bench', 'examples', '.ci', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json', '.taprc']
const SKIP = new Set(['node_modules', 'dist', '.tap', 'results', 'fixtures'])

function * files (path: string): Generator<string> {
  if (statSync(path).isFile()) { yield path; return }
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue
    const child = join(path, entry.name)
    if (entry.isDirectory()) yield * files(child)
    else if (entry.isFile()) yield child
  }
}

t.test('nothing reads a folder outside the repository', async t => {
  let scanned = 0
  const offenders: string[] = []
  for (const root of ROOTS) {
    if (!existsSync(join(REPO_ROOT, root))) continue
    for (const file of files(join(REPO_ROOT, root))) {
      scanned++
      const text = readFileSync(file, 'utf8')
      for (const needle of FORBIDDEN) if (text.includes(needle)) offenders.push(`${relative(REPO_ROOT, file)}: ${needle}`)
    }
  }
  t.ok(scanned > 50, `scanned ${scanned} files`)
  t.strictSame(offenders, [])
})

t.test('the vendored spec data is inside the repository and names its source', async t => {
  t.equal(relative(REPO_ROOT, SPEC_DIR), join('test', 'fixtures', 'mcp-spec'))
  const notice = readFileSync(join(SPEC_DIR, 'README.md'), 'utf8')
  t.match(notice, /modelcontextprotocol\/modelcontextprotocol/)
  t.match(notice, /[0-9a-f]{40}/, 'names the exact upstream commit')
  t.match(notice, /Apache-2\.0/)
  for (const version of ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']) {
    t.ok(statSync(join(SPEC_DIR, version, 'schema.json')).size > 10_000, `${version} schema present`)
  }
  t.ok(readdirSync(join(SPEC_DIR, '2026-07-28', 'examples')).length > 20, '2026-07-28 examples present')
})
