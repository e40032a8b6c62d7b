// HeldOutcomes on its own, with a store that refuses until told otherwise: bounds in count and bytes, expiry, close.
import t from 'tap'
import type { Change, TaskStore } from '../../lib/parts/task-store.js'
import { HeldOutcomes, UNREACHABLE_REASON } from '../../lib/tasks/held-outcomes.js'

function refusingStore () {
  const stored: Array<{ taskId: string, kind: string, value: unknown }> = []
  let reachable = false
  const answer = (taskId: string, kind: string, value: unknown): Promise<Change | undefined> => {
    if (!reachable) return Promise.reject(new Error('unreachable'))
    stored.push({ taskId, kind, value })
    return Promise.resolve({ changed: true, task: { taskId, status: kind === 'complete' ? 'completed' : 'failed' } as never })
  }
  const store = {
    complete: (taskId: string, result: unknown) => answer(taskId, 'complete', result),
    fail: (taskId: string, error: unknown) => answer(taskId, 'fail', error)
  } as unknown as TaskStore
  return { store, stored, reach: () => { reachable = true } }
}

const log = { error: () => {}, warn: () => {} } as never

t.test('held until the store answers, then stored once each; bounded in count and bytes', async (t) => {
  const { store, stored, reach } = refusingStore()
  const told: string[] = []
  const held = new HeldOutcomes({ store, log, maxCount: 3, maxBytes: 100, onStored: (change) => told.push(change.task.taskId) })
  const later = Date.now() + 60_000
  held.hold('a', { kind: 'complete', result: { text: 'x'.repeat(50) } }, later)
  held.hold('b', { kind: 'complete', result: { text: 'y'.repeat(60) } }, later)
  held.hold('c', { kind: 'fail', error: { code: -1, message: 'm' }, statusMessage: 'm' }, later)
  held.hold('d', { kind: 'complete', result: {} }, later)
  t.equal(held.size, 3, 'at most maxCount held: the fourth is dropped')
  await held.retry()
  t.equal(held.size, 3, 'nothing stored while the store refuses')
  reach()
  await held.retry()
  t.equal(held.size, 0)
  t.equal(held.bytes, 0)
  t.same(told, ['a', 'b', 'c'])
  t.same(stored[0], { taskId: 'a', kind: 'complete', value: { text: 'x'.repeat(50) } }, 'the first fit whole')
  t.match(stored[1], { taskId: 'b', kind: 'fail', value: { message: `The task's result could not be kept: ${UNREACHABLE_REASON}` } }, 'over the bytes: a failure saying why')
  t.match(stored[2], { taskId: 'c', kind: 'fail', value: { code: -1, message: 'm' } })
  await held.close()
})

t.test('an outcome whose task expired is dropped; close drops what is left', async (t) => {
  const { store, stored } = refusingStore()
  const held = new HeldOutcomes({ store, log, maxCount: 10, maxBytes: 1000, onStored: () => {} })
  held.hold('old', { kind: 'complete', result: {} }, Date.now() - 1)
  held.hold('new', { kind: 'complete', result: {} }, Date.now() + 60_000)
  await held.retry()
  t.equal(held.size, 1, 'the expired one is gone')
  await held.close()
  t.equal(held.size, 0, 'closed: nothing held, no timer left')
  held.hold('after', { kind: 'complete', result: {} }, Date.now() + 60_000)
  t.equal(held.size, 0, 'nothing is held after close')
  t.same(stored, [])
})
