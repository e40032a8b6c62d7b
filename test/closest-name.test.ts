/**
 * The one "did you mean" finder (lib/common/closest-name.ts), used by the
 * option checker (unknown keys) and the module check (handler names).
 */
import t from 'tap'
import { closestName, editDistance } from '../lib/common/closest-name.js'

t.test('editDistance counts inserts, deletes, replaces and swaps of neighbours, ignoring case', async (t) => {
  t.equal(editDistance('maxTasks', 'maxTasks', 3), 0)
  t.equal(editDistance('MaxTasks', 'maxtasks', 3), 0, 'case does not count')
  t.equal(editDistance('maxTask', 'maxTasks', 3), 1, 'a missing letter')
  t.equal(editDistance('mxaTasks', 'maxTasks', 3), 1, 'two neighbours swapped is one edit')
  t.equal(editDistance('maxTusks', 'maxTasks', 3), 1, 'a replaced letter')
  t.equal(editDistance('kitten', 'sitting', 5), 3)
  t.ok(editDistance('a', 'abcdefgh', 2) > 2, 'a length gap past the cap is past the cap')
})

t.test('closestName: the closest within the cap, the first of equals, none past the cap', async (t) => {
  t.equal(closestName('listTool', ['listPrompts', 'listTools', 'callTool']), 'listTools')
  t.equal(closestName('LISTTOOLS', ['listPrompts', 'listTools']), 'listTools', 'the same ignoring case')
  t.equal(closestName('ab', ['ax', 'ay']), 'ax', 'the first of two at one edit')
  t.equal(closestName('ab', ['xy', 'ay', 'ab']), 'ab', 'a later exact match beats an earlier near one')
  t.equal(closestName('abcd', ['wxyz']), undefined)
  t.equal(closestName('abcdef', ['abcxyz'], 2), undefined, 'three edits with a cap of two')
  t.equal(closestName('abcdef', ['abcxyz'], 3), 'abcxyz', 'three edits with a cap of three')
  t.equal(closestName('x', []), undefined)
})

/** The finder option-spec.ts had before it used closestName: full distance, a bound shrinking to the best found. */
function formerNearest (key: string, known: readonly string[]): string | undefined {
  const osa = (a: string, b: string): number => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i === 0 ? j : j === 0 ? i : 0))
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        const row = d[i] as number[]
        const above = d[i - 1] as number[]
        row[j] = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1)
      }
    }
    return (d[a.length] as number[])[b.length] as number
  }
  let best: string | undefined
  let bound = Math.min(3, Math.max(1, Math.floor(key.length / 3)))
  for (const candidate of known) {
    const distance = osa(key.toLowerCase(), candidate.toLowerCase())
    if (distance === 0) return candidate
    if (distance <= bound) {
      best = candidate
      bound = distance - 1
    }
  }
  return best
}

t.test('with the option checker\'s cap it suggests what the former option finder did', async (t) => {
  // Deterministic pseudo-random words over a small alphabet, so near misses are common.
  let seed = 7
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  const word = (): string => Array.from({ length: 1 + next(9) }, () => 'abAB'[next(4)]).join('')
  let suggested = 0
  for (let round = 0; round < 2000; round++) {
    const key = word()
    const known = Array.from({ length: 1 + next(6) }, word)
    const expected = formerNearest(key, known)
    if (expected !== undefined) suggested++
    const cap = Math.min(3, Math.max(1, Math.floor(key.length / 3)))
    if (closestName(key, known, cap) !== expected) {
      t.fail(`${key} among ${known.join(', ')}: expected ${String(expected)}`)
      return
    }
  }
  t.ok(suggested > 200, `many rounds had a suggestion (${suggested})`)
})
