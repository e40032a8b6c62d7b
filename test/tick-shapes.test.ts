import { createHook } from 'node:async_hooks'
import t from 'tap'
import { keepTickShapesAlive, keptTickEntry } from '../lib/response/tick-shapes.js'
import '../lib/index.js'

function ownKeyNames (value: object): string[] {
  return Reflect.ownKeys(value).map(String).sort()
}

/** A fresh nextTick queue entry, as Node builds it. */
function freshTickEntry (): object {
  let entry: object | undefined
  const hook = createHook({ init (_id, type, _trigger, resource) { if (type === 'TickObject') entry ??= resource as object } })
  hook.enable()
  process.nextTick(() => {})
  hook.disable()
  if (entry === undefined) throw new Error('no TickObject seen')
  return entry
}

t.test('importing the plugin keeps one real nextTick queue entry alive', async (t) => {
  // The entry is captured by its own callback, so after the first tick.
  await new Promise((resolve) => setImmediate(resolve))
  const kept = keptTickEntry()
  t.ok(kept, 'an entry is kept')
  t.same(ownKeyNames(kept as object), ownKeyNames(freshTickEntry()), 'it is a queue entry: same own keys as a fresh one')
  t.equal(typeof (kept as { callback?: unknown }).callback, 'function')
  t.equal((kept as { args?: unknown }).args, undefined, 'it holds no arguments')
})

t.test('keeping is done once per process', async (t) => {
  const kept = keptTickEntry()
  keepTickShapesAlive()
  keepTickShapesAlive()
  t.equal(keptTickEntry(), kept, 'the same entry')
  await new Promise<void>((resolve) => process.nextTick(resolve))
  t.equal(keptTickEntry(), kept, 'still the same after more ticks')
})
