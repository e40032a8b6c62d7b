/**
 * The options reference (docs/options.md) is the option tree the plugin
 * checks: every option the checker knows has a row (or is named in its
 * group's row), every row names an option the checker knows (no stale
 * names), and every default written as a literal is the one the checker
 * fills in. The tree is read from the checker itself: an unknown key makes a
 * group list the keys it knows.
 */
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { resolveOptions } from '../../lib/options.js'
import { REPO_ROOT } from '../helpers/paths.js'

type Tree = Record<string, unknown>
const PROBE = '__docs_probe__'

/** Options that pass the checker; a group under `authorization` needs its required keys. */
function baseFor (path: string): Tree {
  const base: Tree = {
    server: {},
    serverInfo: { name: 'docs', version: '1.0.0' },
    // A fixed secret, so that two checks of the same options give equal results.
    requestState: { secret: 'x'.repeat(32) }
  }
  if (path === 'authorization' || path.startsWith('authorization.')) {
    base.authorization = { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://auth.example.com'] }
  }
  return base
}

/** `tree` with `value` at `path`, creating (or copying) the objects on the way. */
function withValue (tree: Tree, path: string[], value: unknown): Tree {
  const [head, ...rest] = path as [string, ...string[]]
  const inner = tree[head]
  const copy: Tree = { ...tree }
  copy[head] = rest.length === 0 ? value : withValue(typeof inner === 'object' && inner !== null ? inner as Tree : {}, rest, value)
  return copy
}

/** `tree` with `patch`'s keys merged into the object at `path` (created when absent). */
function mergedAt (tree: Tree, path: string[], patch: Tree): Tree {
  if (path.length === 0) return { ...tree, ...patch }
  const [head, ...rest] = path as [string, ...string[]]
  const inner = tree[head]
  return { ...tree, [head]: mergedAt(typeof inner === 'object' && inner !== null ? inner as Tree : {}, rest, patch) }
}

function errorOf (options: Tree): Error | undefined {
  try {
    resolveOptions(options)
    return undefined
  } catch (error) {
    return error as Error
  }
}

/** The keys of the group at `path`, or undefined when the option there is not a group. */
function groupKeys (path: string[]): string[] | undefined {
  const dotted = path.join('.')
  const error = errorOf(mergedAt(baseFor(dotted), path, { [PROBE]: true }))
  const probed = [...path, PROBE].join('.')
  const match = /^Invalid option "([^"]+)": unknown option \(known: ([^)]*)\)/.exec(error?.message ?? '')
  if (match === null || match[1] !== probed) return undefined
  return (match[2] ?? '').split(', ')
}

/** Every option path of the tree, groups included, with whether each is a group. */
function optionTree (): Map<string, boolean> {
  const found = new Map<string, boolean>()
  const walk = (path: string[]): void => {
    const keys = groupKeys(path) ?? []
    for (const key of keys) {
      const child = [...path, key]
      const isGroup = groupKeys(child) !== undefined
      found.set(child.join('.'), isGroup)
      if (isGroup) walk(child)
    }
  }
  walk([])
  return found
}

interface Row { path: string, type: string, default: string, line: number }

function optionRows (): Row[] {
  const lines = readFileSync(join(REPO_ROOT, 'docs', 'options.md'), 'utf8').split('\n')
  // The table under the header `| option | type | default | meaning |`, up to the first line that is not a row.
  const start = lines.indexOf('| option | type | default | meaning |')
  let end = start + 1
  while (end < lines.length && (lines[end] ?? '').startsWith('|')) end++
  return lines.slice(0, end).flatMap((line, i) => {
    if (i <= start) return []
    const cells = /^\| `([\w.]+)` \|(.*)$/.exec(line)
    if (cells === null) return []
    // Split on the cell bars, not on the escaped ones (`\|`) inside a cell.
    const rest = (cells[2] ?? '').split(/(?<!\\)\|/).map((cell) => cell.trim())
    return [{ path: cells[1] as string, type: rest[0] ?? '', default: rest[1] ?? '', line: i + 1 }]
  })
}

/** A default cell that is one literal in backticks: a number, a quoted string, a boolean. */
function literal (cell: string): { value: unknown } | undefined {
  const m = /^`([^`]+)`$/.exec(cell)
  if (m === null) return undefined
  const text = m[1] as string
  if (/^-?\d+$/.test(text)) return { value: Number(text) }
  if (/^'[^']*'$/.test(text)) return { value: text.slice(1, -1) }
  if (text === 'true' || text === 'false') return { value: text === 'true' }
  return undefined
}

const tree = optionTree()
const rows = optionRows()
const documented = new Set(rows.map((row) => row.path))

t.ok(tree.size > 60, `${tree.size} options read from the checker`)
t.ok(rows.length > 60, `${rows.length} rows in docs/options.md`)

t.test('every row names an option the plugin knows', async (t) => {
  t.strictSame(rows.filter((row) => !tree.has(row.path)).map((row) => `docs/options.md:${row.line} ${row.path}`), [])
})

t.test('every option has a row, or is named in its group\'s row', async (t) => {
  // Groups (`limits`, `cacheHints.discover`) need no row of their own: their options carry the facts.
  const typeOf = new Map(rows.map((row) => [row.path, row.type]))
  const missing = [...tree.keys()].filter((path) => {
    if (documented.has(path) || tree.get(path) === true) return false
    const parent = path.slice(0, path.lastIndexOf('.'))
    const key = path.slice(path.lastIndexOf('.') + 1)
    // A leaf of a documented group whose type spells the group's keys: `{ name, version, title? }`.
    return !(tree.get(path) === false && new RegExp(`[{,]\\s*${key}\\??[,\\s}]`).test(typeOf.get(parent) ?? ''))
  })
  t.strictSame(missing, [])
})

t.test('every literal default is the one the checker fills in', async (t) => {
  let checked = 0
  for (const row of rows) {
    const documentedDefault = literal(row.default)
    if (documentedDefault === undefined || !tree.has(row.path)) continue
    const path = row.path.split('.')
    // The group around the option present (`tasks: {}` turns tasks on), the option itself left out...
    const parents = path.slice(0, -1)
    const without = parents.length === 0 ? baseFor(row.path) : mergedAt(baseFor(row.path), parents, {})
    // ...against the same with the documented default given.
    const given = withValue(without, path, documentedDefault.value)
    const same = isDeepStrictEqual(resolveOptions(given), resolveOptions(without))
    t.ok(same, `docs/options.md:${row.line} ${row.path} defaults to ${row.default}`)
    checked++
  }
  t.ok(checked >= 30, `${checked} literal defaults checked`)
})

t.test('a wrong default would be caught', async (t) => {
  const options = baseFor('limits.bodyLimit')
  t.notOk(isDeepStrictEqual(resolveOptions(withValue(options, ['limits', 'bodyLimit'], 1024)), resolveOptions(options)))
  t.equal(literal('`1048576`')?.value, 1048576)
  t.equal(literal("`'dual'`")?.value, 'dual')
  t.equal(literal('a tenth of `maxTasks`'), undefined)
})
