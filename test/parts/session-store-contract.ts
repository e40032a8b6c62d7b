/**
 * The session store contract (lib/parts/session-store.ts), as tests any
 * `SessionStore` must pass: run against the memory store, one Redis and a
 * Redis Cluster by test/redis/session-store.test.ts.
 *
 * A store may answer `touch` from a copy for up to `min(idleTimeout / 4,
 * 5 s)` (lib/redis/redis-session-store.ts): where a test needs the stored
 * truth it waits past that window, or asks a second store (another
 * instance) when the store is shared.
 */
import { randomBytes } from 'node:crypto'
import type { Test } from 'tap'
import type { SessionLimits, SessionStore } from '../../lib/parts/session-store.js'

/** A new store on the data of `space`; with a shared store, two made with one space are two instances on the same sessions. */
export type SessionStoreMaker = (space: string) => SessionStore

export const SESSION_LIMITS: SessionLimits = Object.freeze({ maxSessions: 100, maxSessionsPerCaller: 10, idleTimeoutMs: 60_000 })

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
const newId = (): string => randomBytes(16).toString('base64url')

export function sessionStoreContract (t: Test, make: SessionStoreMaker, shared: boolean): void {
  // Each test has a space of its own (on Redis: a key prefix), so bounds are counted per test.
  const spaces = new WeakMap<Test, string>()
  function open (t: Test): SessionStore {
    let space = spaces.get(t)
    if (space === undefined) spaces.set(t, space = `s${randomBytes(6).toString('hex')}:`)
    const store = make(space)
    t.teardown(() => store.close())
    return store
  }

  t.test('a session is its caller\'s: found by it, by no one else, until it is deleted', async (t) => {
    const store = open(t)
    const id = newId()
    t.strictSame(await store.create(id, 'alice', SESSION_LIMITS) ?? [], [], 'nothing made room')
    t.strictSame(await store.touch(id, 'alice', SESSION_LIMITS), { caller: 'alice', uris: [] })
    t.equal(await store.touch(id, 'bob', SESSION_LIMITS), undefined, 'another caller finds nothing')
    t.equal(await store.touch(newId(), 'alice', SESSION_LIMITS), undefined, 'an id never issued finds nothing')
    t.equal(await store.update(id, 'bob', (r) => ({ ...r, uris: ['file:///x'] }), SESSION_LIMITS), undefined, 'another caller cannot change it')
    t.equal(await store.delete(id, 'bob'), false, 'another caller cannot end it')
    t.strictSame(await store.touch(id, 'alice', SESSION_LIMITS), { caller: 'alice', uris: [] }, 'still there, unchanged')
    t.equal(await store.delete(id, 'alice'), true)
    t.equal(await store.touch(id, 'alice', SESSION_LIMITS), undefined, 'gone once deleted')
    t.equal(await store.delete(id, 'alice'), false, 'a second delete finds nothing (a replayed DELETE)')
  })

  t.test('changes: subscriptions and the level, kept; the caller cannot be changed', async (t) => {
    const store = open(t)
    const id = newId()
    await store.create(id, 'alice', SESSION_LIMITS)
    t.strictSame(await store.update(id, 'alice', (r) => ({ ...r, uris: [...r.uris, 'file:///a'] }), SESSION_LIMITS), { caller: 'alice', uris: ['file:///a'] })
    t.strictSame(await store.update(id, 'alice', (r) => ({ ...r, level: 'info' }), SESSION_LIMITS), { caller: 'alice', uris: ['file:///a'], level: 'info' })
    const moved = await store.update(id, 'alice', (r) => ({ ...r, caller: 'mallory' }), SESSION_LIMITS)
    t.equal(moved?.caller, 'alice', 'the session stays its caller\'s')
    t.equal(await store.touch(id, 'mallory', SESSION_LIMITS), undefined)
    t.strictSame(await store.touch(id, 'alice', SESSION_LIMITS), { caller: 'alice', uris: ['file:///a'], level: 'info' })
    t.equal(await store.update(newId(), 'alice', (r) => r, SESSION_LIMITS), undefined, 'no such session')
  })

  t.test('concurrent changes of one session all land', async (t) => {
    const store = open(t)
    const id = newId()
    await store.create(id, 'alice', SESSION_LIMITS)
    const uris = Array.from({ length: 8 }, (_, i) => `file:///${i}`)
    await Promise.all(uris.map((uri) => store.update(id, 'alice', (r) => ({ ...r, uris: [...r.uris, uri] }), SESSION_LIMITS)))
    const seen = shared ? open(t) : store
    t.strictSame([...(await seen.update(id, 'alice', (r) => r, SESSION_LIMITS))?.uris ?? []].sort(), uris)
  })

  t.test('bounded per caller: the caller\'s least recently used session makes room, and is named', async (t) => {
    const store = open(t)
    const limits = { ...SESSION_LIMITS, maxSessionsPerCaller: 2 }
    const [a, b, c] = [newId(), newId(), newId()]
    await store.create(a, 'alice', limits)
    await store.create(b, 'alice', limits)
    const bob = newId()
    await store.create(bob, 'bob', limits)
    t.strictSame(await store.create(c, 'alice', limits), [a], 'the oldest of alice made room')
    t.equal(await store.touch(a, 'alice', limits), undefined)
    t.ok(await store.touch(b, 'alice', limits))
    t.ok(await store.touch(c, 'alice', limits))
    t.ok(await store.touch(bob, 'bob', limits), 'another caller\'s session is untouched')
  })

  t.test('bounded in all: the least recently used session makes room; use makes a session recent', async (t) => {
    const store = open(t)
    // Past idle/4 (250 ms) a touch reaches the stored truth, not a copy.
    const limits = { ...SESSION_LIMITS, maxSessions: 3, idleTimeoutMs: 1000 }
    const ids = [newId(), newId(), newId()]
    for (const [i, id] of ids.entries()) await store.create(id, `caller${i}`, limits)
    await sleep(300)
    t.ok(await store.touch(ids[0] as string, 'caller0', limits), 'the first one used again')
    const fresh = newId()
    t.strictSame(await store.create(fresh, 'caller9', limits), [ids[1]], 'the least recently used one made room')
    t.equal(await store.touch(ids[1] as string, 'caller1', limits), undefined)
    t.ok(await store.touch(ids[0] as string, 'caller0', limits))
    t.ok(await store.touch(ids[2] as string, 'caller2', limits))
    t.ok(await store.touch(fresh, 'caller9', limits))
  })

  t.test('an idle session expires; a used one lives on', async (t) => {
    const store = open(t)
    const limits = { ...SESSION_LIMITS, idleTimeoutMs: 400 }
    const used = newId()
    const idle = newId()
    await store.create(used, 'alice', limits)
    await store.create(idle, 'alice', limits)
    for (let i = 0; i < 3; i++) {
      await sleep(200)
      t.ok(await store.touch(used, 'alice', limits), `used at ${(i + 1) * 200} ms: alive`)
    }
    t.equal(await store.touch(idle, 'alice', limits), undefined, 'unused for 600 ms of a 400 ms idle timeout: gone')
    await sleep(600)
    t.equal(await store.touch(used, 'alice', limits), undefined, 'then unused past the idle timeout: gone')
  })

  if (!shared) return

  t.test('shared: another instance serves the session; an end heard on the bus drops this instance\'s copy', async (t) => {
    const one = open(t)
    const two = open(t)
    const id = newId()
    await one.create(id, 'alice', SESSION_LIMITS)
    t.ok(await one.touch(id, 'alice', SESSION_LIMITS), 'read once on this instance')
    t.strictSame(await two.update(id, 'alice', (r) => ({ ...r, uris: ['file:///b'] }), SESSION_LIMITS), { caller: 'alice', uris: ['file:///b'] }, 'changed on the other')
    one.forget?.(id)
    t.strictSame(await one.touch(id, 'alice', SESSION_LIMITS), { caller: 'alice', uris: ['file:///b'] }, 'the change is read once the copy is dropped')
    t.equal(await two.delete(id, 'alice'), true, 'ended on the other instance')
    one.forget?.(id)
    t.equal(await one.touch(id, 'alice', SESSION_LIMITS), undefined, 'gone here too once told')
  })
}
