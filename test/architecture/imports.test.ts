/**
 * The layout of lib/ stays readable: no import cycle between files or between
 * concerns (the folders directly under lib/, each root file on its own),
 * type-only imports included, and only a few entry files at lib/'s root.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { REPO_ROOT } from '../helpers/paths.js'
import { concernGraph, cycles, importGraph, sourceFiles } from '../helpers/import-graph.js'

const MAX_ROOT_FILES = 8

const graph = importGraph(REPO_ROOT, 'lib')

t.test('no import cycle between files under lib/', async (t) => {
  t.ok(graph.size > 30, `read the whole tree (${graph.size} files)`)
  t.same(cycles(graph), [])
})

t.test('no import cycle between the concerns of lib/', async (t) => {
  t.same(cycles(concernGraph(graph, 'lib')), [])
})

t.test(`at most ${MAX_ROOT_FILES} files directly under lib/`, async (t) => {
  const root = sourceFiles(REPO_ROOT, 'lib').filter((f) => f.split('/').length === 2)
  t.ok(root.length <= MAX_ROOT_FILES, `lib/ root holds ${root.join(', ')}`)
})

t.test('the checker finds cycles, type-only and dynamic imports included', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'import-graph-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'src', 'low'), { recursive: true })
  mkdirSync(join(dir, 'src', 'high'), { recursive: true })
  writeFileSync(join(dir, 'src', 'low', 'a.ts'), "import type { B } from '../high/b.js'\nexport type A = B\n")
  writeFileSync(join(dir, 'src', 'high', 'b.ts'), "export type B = string\nexport const load = () => import('./c.js')\n")
  writeFileSync(join(dir, 'src', 'high', 'c.ts'), "export { type A } from '../low/a.js'\n")
  writeFileSync(join(dir, 'src', 'high', 'd.ts'), "import { x } from 'outside'\nexport const y = x\n")
  const g = importGraph(dir, 'src')
  t.same(g.get('src/high/b.ts'), ['src/high/c.ts'])
  t.same(cycles(g), [['src/high/b.ts', 'src/high/c.ts', 'src/low/a.ts']])
  t.same(cycles(concernGraph(g, 'src')), [['high/', 'low/']])
})
