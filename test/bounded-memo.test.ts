import t from 'tap'
import { BoundedMemo, PairMemo } from '../lib/common/bounded-memo.js'

t.test('PairMemo: a repeated pair gets the value computed the first time, within the bound', async (t) => {
  let computed = 0
  const memo = new PairMemo(4, (a: string, b: number) => ({ text: `${a}/${b}`, n: ++computed }))
  const first = memo.get('x', 1)
  t.equal(memo.get('x', 1), first, 'the same object')
  t.equal(computed, 1)
  t.not(memo.get('x', 2), first, 'another second value is another pair')
  t.not(memo.get('y', 1), first, 'another first value is another pair')
  memo.get('z', 9)
  t.equal(computed, 4, 'four pairs, four computations')
  t.equal(memo.get('x', 1), first, 'still kept at the bound')
  memo.get('w', 0) // a fifth pair: the memo starts over
  const again = memo.get('x', 1)
  t.not(again, first, 'after starting over the pair is computed again')
  t.same(again.text, 'x/1', 'to the same value')
  t.equal(computed, 6)
})

function filled (eviction: 'restart' | 'oldest' | 'least-recent'): BoundedMemo<string, number> {
  const memo = new BoundedMemo<string, number>(3, eviction)
  memo.set('a', 1)
  memo.set('b', 2)
  memo.set('c', 3)
  return memo
}

t.test('restart: a full memo forgets everything before storing a new key', async (t) => {
  const memo = filled('restart')
  memo.set('b', 20)
  t.equal(memo.size, 3, 'storing a kept key again evicts nothing')
  memo.set('d', 4)
  t.same([...memo.entries()], [['d', 4]])
})

t.test('oldest: a full memo forgets the entry stored first, whatever was read', async (t) => {
  const memo = filled('oldest')
  t.equal(memo.get('a'), 1)
  memo.set('d', 4)
  t.same([...memo.entries()].map(([k]) => k), ['b', 'c', 'd'])
  memo.set('b', 5)
  memo.set('e', 6)
  t.same([...memo.entries()].map(([k]) => k), ['d', 'b', 'e'], 'storing again makes an entry the newest')
})

t.test('least-recent: a full memo forgets the entry read or stored longest ago', async (t) => {
  const memo = filled('least-recent')
  t.equal(memo.get('a'), 1)
  memo.set('d', 4)
  t.same([...memo.entries()].map(([k]) => k), ['c', 'a', 'd'])
  t.equal(memo.get('b'), undefined, 'b was evicted')
})

t.test('a limit of 0 keeps nothing', async (t) => {
  for (const eviction of ['restart', 'oldest', 'least-recent'] as const) {
    const memo = new BoundedMemo<string, number>(0, eviction)
    memo.set('a', 1)
    t.equal(memo.size, 0, eviction)
  }
})
