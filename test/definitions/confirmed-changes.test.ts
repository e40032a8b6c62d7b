/**
 * ConfirmedChanges: a change waits for a confirmation from every other
 * instance the bus reached, rejects naming how many confirmed when some stay
 * silent, resolves at once on a bus that does not say how many it reached,
 * and never waits for itself. However it settles, it then says so on the
 * bus (`changeSettled`, the id of the change), which releases the other
 * instances' held notices (lib/definitions/settled-notices.ts).
 */
import t from 'tap'
import { ConfirmedChanges } from '../../lib/definitions/confirmed-changes.js'
import { type McpEvent, MemoryEventBus } from '../../lib/parts/event-bus.js'

const change = (list: 'tools' | 'prompts', name: string, change: 'remove' | 'disable' | 'enable') =>
  (id: string): McpEvent => ({ type: 'definitionChanged', list, name, change, id })

// The confirmation timer is unref'd (a server keeps the process alive); here a ref'd interval does.
const alive = setInterval(() => {}, 1000)
t.teardown(() => clearInterval(alive))

/** A bus that reports `reached` subscriptions and records what was published. */
function countingBus (reached: number) {
  const published: McpEvent[] = []
  return {
    published,
    publish: async (event: McpEvent) => { published.push(event); return reached },
    subscribe: () => () => {},
    close: async () => {}
  }
}

t.test('resolves once every other instance confirmed', async (t) => {
  const bus = countingBus(3)
  const changes = new ConfirmedChanges(bus, 2000)
  let done = false
  const shared = changes.share(change('tools', 'add', 'disable')).then(() => { done = true })
  await new Promise((resolve) => setImmediate(resolve))
  const sent = bus.published[0] as Extract<McpEvent, { type: 'definitionChanged' }>
  t.match(sent, { type: 'definitionChanged', list: 'tools', name: 'add', change: 'disable' })
  t.ok(changes.isOwn(sent.id as string), 'its own change: not confirmed by itself')
  changes.confirmed({ type: 'definitionApplied', id: sent.id as string })
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(done, false, 'one of two is not enough')
  changes.confirmed({ type: 'definitionApplied', id: 'someone-else' })
  changes.confirmed({ type: 'definitionApplied', id: sent.id as string })
  await shared
  t.equal(done, true)
  t.equal(changes.isOwn(sent.id as string), false)
  t.strictSame(bus.published.slice(1), [{ type: 'changeSettled', id: sent.id }], 'settled: said once, after the confirmations')
})

t.test('a change that timed out, failed or was cut short by close is settled all the same (said on the bus)', async (t) => {
  const timedOut = countingBus(3)
  await t.rejects(new ConfirmedChanges(timedOut, 50).share(change('tools', 'x', 'disable')))
  t.strictSame(timedOut.published.map((e) => e.type), ['definitionChanged', 'changeSettled'])
  t.equal((timedOut.published[1] as { id: string }).id, (timedOut.published[0] as { id: string }).id)

  const refused = countingBus(3)
  const changes = new ConfirmedChanges(refused, 2000)
  const shared = changes.share(change('tools', 'x', 'remove'))
  await new Promise((resolve) => setImmediate(resolve))
  const id = (refused.published[0] as { id: string }).id
  changes.confirmed({ type: 'definitionApplied', id, error: 'no' })
  changes.confirmed({ type: 'definitionApplied', id })
  await t.rejects(shared)
  t.strictSame(refused.published[1], { type: 'changeSettled', id })

  const closing = countingBus(2)
  const closed = new ConfirmedChanges(closing, 5000)
  const pending = closed.share(change('tools', 'x', 'enable'))
  await new Promise((resolve) => setImmediate(resolve))
  closed.close()
  await t.rejects(pending)
  t.strictSame(closing.published.map((e) => e.type), ['definitionChanged', 'changeSettled'])
})

t.test('an instance that stays silent makes the change reject, saying how many confirmed', async (t) => {
  const changes = new ConfirmedChanges(countingBus(3), 50)
  await t.rejects(changes.share(change('prompts', 'p', 'remove')), { message: /0 of the 2 other instances confirmed it within 50 ms/ })
})

t.test('a bus that does not count resolves once it took the change; a failing bus rejects', async (t) => {
  await new ConfirmedChanges(new MemoryEventBus(), 50).share(change('tools', 'x', 'enable'))
  const failing = { publish: async () => { throw new Error('down') }, subscribe: () => () => {}, close: async () => {} }
  await t.rejects(new ConfirmedChanges(failing, 50).share(change('tools', 'x', 'enable')), { message: 'down' })
  const alone = countingBus(1)
  await new ConfirmedChanges(alone, 50).share(change('tools', 'x', 'enable'))
  t.equal(alone.published[0]?.type, 'definitionChanged', 'reached only itself: nothing to wait for')
  t.strictSame(alone.published[1], { type: 'changeSettled', id: (alone.published[0] as { id: string }).id }, 'settled at once')
  t.equal(alone.published.length, 2)
})

t.test('on a bus no other instance shares, nothing is said when a change settled', async (t) => {
  const lone = countingBus(1)
  await new ConfirmedChanges(lone, 50, false).share(change('tools', 'x', 'disable'))
  t.strictSame(lone.published.map((event) => event.type), ['definitionChanged'], 'no changeSettled: nobody holds on it')
})

t.test('an instance that could not apply it makes the change reject with its reason', async (t) => {
  const bus = countingBus(3)
  const changes = new ConfirmedChanges(bus, 2000)
  const shared = changes.share((id) => ({ type: 'namedChange', name: 'add-shout', id }))
  await new Promise((resolve) => setImmediate(resolve))
  const id = (bus.published[0] as { id: string }).id
  changes.confirmed({ type: 'definitionApplied', id })
  changes.confirmed({ type: 'definitionApplied', id, error: 'no change is defined under "add-shout" on this instance' })
  await t.rejects(shared, { message: '1 instance(s) could not apply it: no change is defined under "add-shout" on this instance' })
})

t.test('close rejects what still waits', async (t) => {
  const changes = new ConfirmedChanges(countingBus(2), 5000)
  const pending = changes.share(change('tools', 'x', 'remove'))
  await new Promise((resolve) => setImmediate(resolve))
  changes.close()
  await t.rejects(pending, { message: /closed/ })
})

t.test('definition events from a shared medium are checked before use', async (t) => {
  const { isMcpEvent } = await import('../../lib/parts/event-bus.js')
  t.ok(isMcpEvent({ type: 'definitionChanged', list: 'tools', name: 'add', change: 'disable', id: 'a1' }))
  t.ok(isMcpEvent({ type: 'definitionApplied', id: 'a1' }))
  t.notOk(isMcpEvent({ type: 'definitionChanged', list: 'users', name: 'add', change: 'disable' }), 'unknown list')
  t.notOk(isMcpEvent({ type: 'definitionChanged', list: 'tools', name: 'add', change: 'drop' }), 'unknown change')
  t.notOk(isMcpEvent({ type: 'definitionChanged', list: 'tools', name: 'x'.repeat(5000), change: 'remove' }), 'a name longer than any definition has')
  t.notOk(isMcpEvent({ type: 'definitionChanged', list: 'tools', name: 7, change: 'remove' }))
  t.ok(isMcpEvent({ type: 'namedChange', name: 'add-shout', id: 'a1', seq: 3 }))
  t.ok(isMcpEvent({ type: 'definitionApplied', id: 'a1', error: 'why' }))
  t.ok(isMcpEvent({ type: 'changeSettled', id: 'a1' }))
  t.notOk(isMcpEvent({ type: 'changeSettled', id: '' }))
  t.notOk(isMcpEvent({ type: 'changeSettled', id: 'y'.repeat(65) }))
  t.notOk(isMcpEvent({ type: 'changeSettled' }))
  t.notOk(isMcpEvent({ type: 'namedChange', name: 'add-shout', id: 'a1', seq: -1 }), 'a sequence number is positive')
  t.notOk(isMcpEvent({ type: 'definitionApplied', id: 'a1', error: 'x'.repeat(2000) }), 'a reason is bounded')
  t.notOk(isMcpEvent({ type: 'definitionApplied', id: '' }))
  t.notOk(isMcpEvent({ type: 'definitionApplied', id: 'y'.repeat(65) }))
})
