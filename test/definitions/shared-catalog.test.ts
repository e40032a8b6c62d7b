/**
 * The convergence rule of runtime catalogue changes (lib/definitions/shared-catalog.ts):
 * the latest recorded change of a subject wins by sequence number, whatever
 * order the bus delivers in; an event heard while this instance records a
 * change of the same subject waits for its number; catch-up applies only
 * what was not applied here, in order.
 */
import t from 'tap'
import { SharedCatalog } from '../../lib/definitions/shared-catalog.js'
import type { LiveCatalogs } from '../../lib/definitions/live.js'
import { type CatalogChange, MemoryCatalogStore } from '../../lib/parts/catalog-store.js'
import { type DefinitionChange, type ListName, MemoryEventBus } from '../../lib/parts/event-bus.js'
import { SettledNotices } from '../../lib/definitions/settled-notices.js'

const quiet = { warn: () => {} }
/** Notices told at once (these tests are about order, not streams). */
const atOnce = () => new SettledNotices({ listChanged: () => {}, resourceUpdated: () => {} }, { holds: false })

/** A catalogue that records what was applied to it. */
function fakeLive () {
  const applied: string[] = []
  const live = { apply: (list: ListName, name: string, change: DefinitionChange) => { applied.push(`${change} ${list}/${name}`); return true } } as unknown as LiveCatalogs
  return { live, applied }
}

t.test('a stale event (a number at or below the one applied) is skipped; a newer one applies', async (t) => {
  const { live, applied } = fakeLive()
  const catalog = new SharedCatalog(new MemoryCatalogStore(), new MemoryEventBus(), atOnce())
  catalog.attach(live)
  catalog.heard({ type: 'definitionChanged', list: 'tools', name: 'x', change: 'enable', id: 'b', seq: 6 })
  catalog.heard({ type: 'definitionChanged', list: 'tools', name: 'x', change: 'disable', id: 'a', seq: 5 })
  catalog.heard({ type: 'definitionChanged', list: 'tools', name: 'y', change: 'disable', id: 'c', seq: 4 })
  t.strictSame(applied, ['enable tools/x', 'disable tools/y'], 'the late disable of x (5 < 6) did not undo the enable')
})

t.test('an event heard while recording the same subject waits for this instance\'s number', async (t) => {
  const { live, applied } = fakeLive()
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  const store = new MemoryCatalogStore()
  const slow = { record: async (change: CatalogChange) => { await gate; return 10 + await store.record(change) }, read: () => store.read(), close: async () => {} }
  const catalog = new SharedCatalog(slow, new MemoryEventBus(), atOnce())
  catalog.attach(live)
  const shared = catalog.share('tools', 'x', 'enable', () => {})
  // Another instance's older disable (9) arrives before our number (11) is known: it must not win.
  catalog.heard({ type: 'definitionChanged', list: 'tools', name: 'x', change: 'disable', id: 'other', seq: 9 })
  t.strictSame(applied, [], 'held back')
  release()
  await shared
  t.strictSame(applied, [], 'then skipped as stale')
  catalog.heard({ type: 'definitionChanged', list: 'tools', name: 'x', change: 'disable', id: 'newer', seq: 12 })
  t.strictSame(applied, ['disable tools/x'])
})

t.test('catch-up applies what was not applied here, in order, once; a named change unknown here is logged, not fatal', async (t) => {
  const store = new MemoryCatalogStore()
  await store.record({ kind: 'named', name: 'add-shout' })
  await store.record({ kind: 'definition', list: 'tools', name: 'shout', change: 'disable' })
  await store.record({ kind: 'named', name: 'unknown-here' })
  const { live, applied } = fakeLive()
  const catalog = new SharedCatalog(store, new MemoryEventBus(), atOnce())
  catalog.attach(live)
  catalog.changes.define('add-shout', () => { applied.push('ran add-shout') })
  const warned: string[] = []
  t.equal(await catalog.catchUp({ warn: (_o, msg) => { warned.push(msg) } }), 3)
  t.strictSame(applied, ['ran add-shout', 'disable tools/shout'])
  t.match(warned, [/no change is defined under "unknown-here"/])
  t.equal(await catalog.catchUp(quiet), 0, 'nothing twice')
  t.strictSame(applied, ['ran add-shout', 'disable tools/shout'])
})

t.test('a store that cannot be read fails the catch-up (ready) with a coded error', async (t) => {
  const broken = { record: async () => 1, read: async () => { throw new Error('down') }, close: async () => {} }
  const catalog = new SharedCatalog(broken, new MemoryEventBus(), atOnce())
  await t.rejects(catalog.catchUp(quiet), { code: 'FST_MCP_SCALE_UNAVAILABLE', message: /catalogue store could not be read.*down/ })
})

t.test('a change that cannot be recorded still reaches the running instances, and says so', async (t) => {
  const { live } = fakeLive()
  const bus = new MemoryEventBus()
  const heard: unknown[] = []
  bus.subscribe((event) => heard.push(event))
  const failing = { record: async () => { throw new Error('full') }, read: async () => [], close: async () => {} }
  const catalog = new SharedCatalog(failing, bus, atOnce())
  catalog.attach(live)
  await t.rejects(catalog.share('tools', 'x', 'remove', () => {}), { code: 'FST_MCP_SCALE_UNAVAILABLE', message: /could not be recorded.*full/ })
  t.match(heard, [{ type: 'definitionChanged', list: 'tools', name: 'x', change: 'remove' }])
})

t.test('what a shared change tells is held: a heard one until its changeSettled, one made here until its sharing settled', async (t) => {
  const told: string[] = []
  const notices = new SettledNotices({ listChanged: (list) => told.push(`list ${list}`), resourceUpdated: (uri) => told.push(`updated ${uri}`) }, { holds: true })
  // A catalogue that tells what it applied, as lib/definitions/live.ts does.
  const live = { apply: (list: ListName) => { notices.listChanged(list); return true } } as unknown as LiveCatalogs
  const bus = new MemoryEventBus()
  const published: string[] = []
  bus.subscribe((event) => published.push(event.type))
  const catalog = new SharedCatalog(new MemoryCatalogStore(), bus, notices)
  t.teardown(() => catalog.close())
  catalog.attach(live)

  catalog.heard({ type: 'definitionChanged', list: 'tools', name: 'x', change: 'disable', id: 'theirs', seq: 1 })
  t.strictSame(told, [], 'applied, not told')
  catalog.settled({ type: 'changeSettled', id: 'someone-else' })
  t.strictSame(told, [])
  catalog.settled({ type: 'changeSettled', id: 'theirs' })
  t.strictSame(told, ['list tools'], 'told once the maker says it settled')

  const shared = catalog.share('prompts', 'p', 'remove', () => live.apply('prompts', 'p', 'remove'))
  t.strictSame(told, ['list tools'], 'made here: applied at once, held')
  await shared
  t.strictSame(told, ['list tools', 'list prompts'], 'told once its sharing settled')
  t.strictSame(published, ['definitionApplied', 'definitionChanged', 'changeSettled'], 'and said so on the bus')

  catalog.heard({ type: 'definitionChanged', list: 'resources', name: 'r', change: 'disable' })
  t.strictSame(told, ['list tools', 'list prompts', 'list resources'], 'an event without an id cannot be settled: told at once')
})
