import t from 'tap'
import { PairMemo } from '../lib/response/pair-memo.js'

t.test('a repeated pair gets the value computed the first time, within the bound', async (t) => {
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
