/**
 * The task store contract, as tests any `TaskStore` must pass: run against
 * the memory store (test/parts/task-store.test.ts) and the Redis store
 * (test/redis/task-store.test.ts) alike.
 */
import type { Test } from 'tap'
import type { TaskLimits, TaskStore } from '../../lib/parts/task-store.js'

export type StoreFactory = (limits: TaskLimits) => Promise<TaskStore> | TaskStore

export const LIMITS: TaskLimits = Object.freeze({
  ttlMs: 60_000,
  pollIntervalMs: 1000,
  maxTasks: 100,
  maxTasksPerOwner: 100,
  maxTaskBytes: 64 * 1024,
  maxStoredBytes: 1024 * 1024
})

const QUESTION = { method: 'elicitation/create', params: { message: 'Go?', requestedSchema: { type: 'object', properties: {} } } }
const ACCEPT = { action: 'accept', content: {} }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

async function created (t: Test, store: TaskStore, owner: string): Promise<string> {
  const outcome = await store.create(owner)
  if (!outcome.ok) throw new Error(`create refused: ${outcome.reason}`)
  return outcome.task.taskId
}

export function taskStoreContract (t: Test, make: StoreFactory): void {
  async function open (t: Test, limits: Partial<TaskLimits> = {}): Promise<TaskStore> {
    const store = await make({ ...LIMITS, ...limits })
    t.teardown(() => store.close())
    return store
  }

  t.test('a created task is readable at once, by its owner only', async (t) => {
    const store = await open(t)
    const outcome = await store.create('alice')
    t.ok(outcome.ok)
    if (!outcome.ok) return
    const { task } = outcome
    t.match(task, { owner: 'alice', status: 'working', ttlMs: LIMITS.ttlMs, inputRequests: {} })
    t.match(task.taskId, /^[0-9a-f-]{36}$/, 'a random UUID')
    t.equal(task.createdAt, task.lastUpdatedAt)
    t.strictSame(await store.get(task.taskId, 'alice'), task, 'get returns what create returned')
    t.equal(await store.get(task.taskId, 'bob'), undefined, 'another owner finds nothing')
    t.equal(await store.get('no-such-task', 'alice'), undefined)
    t.equal(await store.answer(task.taskId, 'bob', { x: ACCEPT }), undefined, 'another owner cannot answer')
    t.equal(await store.cancel(task.taskId, 'bob', 'no'), undefined, 'another owner cannot cancel')
    t.equal((await store.get(task.taskId, 'alice'))?.status, 'working', 'still working')
  })

  t.test('questions, answers and completion', async (t) => {
    const store = await open(t)
    const id = await created(t, store, 'alice')
    const asked = await store.ask(id, 'q1', QUESTION)
    t.ok(asked.ok)
    t.match(asked.ok && asked.task, { status: 'input_required', inputRequests: { q1: QUESTION } })
    await store.ask(id, 'q2', QUESTION)
    t.strictSame(Object.keys((await store.get(id, 'alice'))?.inputRequests ?? {}).sort(), ['q1', 'q2'])

    const partial = await store.answer(id, 'alice', { q1: ACCEPT, unknown: ACCEPT })
    t.match(partial, { ok: true, accepted: ['q1'] }, 'unknown keys are ignored')
    const afterPartial = await store.get(id, 'alice')
    t.equal(afterPartial?.status, 'input_required', 'still waiting for q2')
    t.strictSame(Object.keys(afterPartial?.inputRequests ?? {}), ['q2'])
    t.match(await store.answer(id, 'alice', { q1: { action: 'decline' } }), { ok: true, accepted: [] }, 'an answered key is not outstanding any more')

    t.strictSame(await store.takeAnswers(id), { q1: ACCEPT }, 'the running work takes the recorded answer')
    t.strictSame(await store.takeAnswers(id), {}, 'once')

    const last = await store.answer(id, 'alice', { q2: { action: 'decline' } })
    t.match(last, { ok: true, accepted: ['q2'], task: { status: 'working', inputRequests: {} } })
    t.strictSame(await store.takeAnswers(id), { q2: { action: 'decline' } })

    const message = await store.setStatusMessage(id, 'halfway')
    t.match(message, { changed: true, task: { statusMessage: 'halfway' } })

    const result = { content: [{ type: 'text', text: 'done' }], resultType: 'complete' }
    const done = await store.complete(id, result)
    t.match(done, { changed: true, task: { status: 'completed', result } })
    const read = await store.get(id, 'alice')
    t.strictSame(read?.result, result)
    t.equal(read?.statusMessage, undefined, 'a completed task drops its progress message')
    t.strictSame(read?.inputRequests, {})
  })

  t.test('terminal states are final', async (t) => {
    const store = await open(t)
    const id = await created(t, store, 'alice')
    t.match(await store.cancel(id, 'alice', 'Cancelled by the client'), { changed: true, task: { status: 'cancelled', statusMessage: 'Cancelled by the client' } })
    t.match(await store.complete(id, { content: [] }), { changed: false, task: { status: 'cancelled' } })
    t.match(await store.fail(id, { code: -32603, message: 'x' }, 'x'), { changed: false, task: { status: 'cancelled' } })
    t.match(await store.cancel(id, 'alice', 'again'), { changed: false, task: { statusMessage: 'Cancelled by the client' } })
    t.match(await store.setStatusMessage(id, 'late'), { changed: false })
    t.match(await store.ask(id, 'q', QUESTION), { ok: false, reason: 'finished' })
    t.match(await store.answer(id, 'alice', { q: ACCEPT }), { ok: true, accepted: [] })
    const read = await store.get(id, 'alice')
    t.equal(read?.status, 'cancelled')
    t.equal(read?.result, undefined)

    const failed = await created(t, store, 'alice')
    await store.ask(failed, 'q', QUESTION)
    t.match(await store.fail(failed, { code: -32000, message: 'boom' }, 'boom'),
      { changed: true, task: { status: 'failed', statusMessage: 'boom', error: { code: -32000, message: 'boom' }, inputRequests: {} } })
    t.match(await store.get(failed, 'alice'), { status: 'failed', error: { code: -32000, message: 'boom' } })
    t.match(await store.ask('gone-task', 'q', QUESTION), { ok: false, reason: 'gone' })
  })

  t.test('concurrent transitions: exactly one wins', async (t) => {
    const store = await open(t)
    for (let round = 0; round < 5; round++) {
      const id = await created(t, store, 'alice')
      const racers = await Promise.all([
        store.complete(id, { content: [{ type: 'text', text: 'a' }] }),
        store.fail(id, { code: -32603, message: 'b' }, 'b'),
        store.cancel(id, 'alice', 'c'),
        store.complete(id, { content: [{ type: 'text', text: 'd' }] }),
        store.cancel(id, 'alice', 'e')
      ])
      const winners = racers.filter((change) => change?.changed === true)
      t.equal(winners.length, 1, `round ${round}: one transition changed the task`)
      const read = await store.get(id, 'alice')
      t.equal(read?.status, winners[0]?.task.status, 'and the stored status is the winner\'s')
    }
  })

  t.test('concurrent creates never pass the bounds', async (t) => {
    const store = await open(t, { maxTasks: 10, maxTasksPerOwner: 6 })
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => store.create(i % 2 === 0 ? 'alice' : 'bob')))
    const made = outcomes.filter((o) => o.ok)
    t.equal(made.length, 10, 'ten tasks in all')
    const perOwner = (owner: string): number => made.filter((o) => o.ok && o.task.owner === owner).length
    t.ok(perOwner('alice') <= 6 && perOwner('bob') <= 6, `at most six each (${perOwner('alice')}, ${perOwner('bob')})`)
  })

  t.test('per-owner bound: one owner cannot fill the store for everyone', async (t) => {
    const store = await open(t, { maxTasks: 5, maxTasksPerOwner: 2 })
    const a1 = await created(t, store, 'alice')
    await created(t, store, 'alice')
    t.match(await store.create('alice'), { ok: false, reason: 'owner-full' }, 'a third unfinished task of alice is refused')
    t.match(await store.create('bob'), { ok: true }, 'bob still gets one')
    await store.complete(a1, { content: [] })
    t.match(await store.create('alice'), { ok: true }, 'alice\'s finished task makes room for her next one')
    t.equal(await store.get(a1, 'alice'), undefined, 'by being evicted')
  })

  t.test('total bound: finished tasks are evicted first, oldest first', async (t) => {
    const store = await open(t, { maxTasks: 3 })
    const ids = [await created(t, store, 'a'), await created(t, store, 'b'), await created(t, store, 'c')]
    t.match(await store.create('d'), { ok: false, reason: 'full' }, 'full of unfinished tasks')
    await store.complete(ids[2] as string, { content: [] })
    await store.complete(ids[1] as string, { content: [] })
    t.match(await store.create('d'), { ok: true })
    t.equal(await store.get(ids[1] as string, 'b'), undefined, 'the oldest finished task went')
    t.ok(await store.get(ids[2] as string, 'c'), 'the newer finished task stays')
    t.ok(await store.get(ids[0] as string, 'a'), 'the unfinished task stays')
  })

  t.test('byte bounds: per task, and in all', async (t) => {
    const store = await open(t, { maxTaskBytes: 2000, maxStoredBytes: 5000 })
    const big = { content: [{ type: 'text', text: 'x'.repeat(3000) }] }
    const id = await created(t, store, 'alice')
    const change = await store.complete(id, big)
    t.match(change, { changed: true, task: { status: 'failed', error: { code: -32603 } } }, 'a result over the per-task limit fails the task')
    t.match(change?.task.statusMessage, /could not be kept: it is 3\d{3} bytes of JSON, over the limit of 2000 bytes per task/)
    t.match(await store.get(id, 'alice'), { status: 'failed', error: { message: /over the limit of 2000 bytes/ } })

    const asking = await created(t, store, 'alice')
    t.match(await store.ask(asking, 'q', { method: 'elicitation/create', params: { message: 'y'.repeat(2500) } }), { ok: false, reason: 'too-large' })
    t.match(await store.get(asking, 'alice'), { status: 'working' }, 'a refused question changes nothing')

    // Fill the byte budget with finished results; each new one evicts the oldest.
    const done: string[] = []
    for (let i = 0; i < 4; i++) {
      const next = await created(t, store, 'bob')
      t.match(await store.complete(next, { content: [{ type: 'text', text: 'z'.repeat(1500) }] }), { task: { status: 'completed' } })
      done.push(next)
    }
    t.equal(await store.get(done[0] as string, 'bob'), undefined, 'the oldest finished result made room')
    t.match(await store.get(done[3] as string, 'bob'), { status: 'completed' })

    // Unfinished tasks' questions cannot be evicted: once they fill the budget, more is refused.
    const parked: string[] = []
    let refusal: string | undefined
    for (let i = 0; i < 6 && refusal === undefined; i++) {
      const next = await created(t, store, 'carol')
      const asked = await store.ask(next, 'q', { method: 'elicitation/create', params: { message: 'w'.repeat(1500) } })
      if (asked.ok) parked.push(next)
      else refusal = asked.reason
    }
    t.equal(refusal, 'full', 'questions of unfinished tasks are refused once the budget is spent')
    t.ok(parked.length >= 2 && parked.length <= 3, `${parked.length} parked questions fit in 5000 bytes`)
    const late = await created(t, store, 'dave')
    t.match(await store.complete(late, { content: [{ type: 'text', text: 'v'.repeat(1800) }] }),
      { task: { status: 'failed', statusMessage: /no room left/ } }, 'a result that finds no room fails its task, saying why')
  })

  t.test('results that are not JSON objects fail the task', async (t) => {
    const store = await open(t)
    const id = await created(t, store, 'alice')
    const change = await store.complete(id, { n: 1n } as unknown as Record<string, unknown>)
    t.match(change, { changed: true, task: { status: 'failed', statusMessage: /not a JSON object/ } })
    const other = await created(t, store, 'alice')
    const primitive = { toJSON: () => 7 } as unknown as Record<string, unknown>
    t.match(await store.complete(other, primitive), { task: { status: 'failed' } })
  })

  t.test('TTL: a task is gone once its ttlMs has passed, and frees its place', async (t) => {
    const store = await open(t, { ttlMs: 150, maxTasks: 2, maxTasksPerOwner: 2 })
    const id = await created(t, store, 'alice')
    await created(t, store, 'alice')
    t.match(await store.create('alice'), { ok: false })
    await sleep(400)
    t.equal(await store.get(id, 'alice'), undefined, 'expired')
    t.match(await store.create('alice'), { ok: true }, 'room again')
    t.match(await store.create('alice'), { ok: true })
  })
}
