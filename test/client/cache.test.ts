/**
 * DiscoverCache against a counting server, with an injected clock: hits,
 * expiry, scope partitioning by credential, coalescing, eviction, clamp.
 */
import t from 'tap'
import { DiscoverCache, DiscoverAbortError, DiscoverHttpError } from '../../lib/client/index.js'
import type { Discovery } from '../../lib/client/index.js'
import { credentialKey } from '../../lib/client/credential.js'
import { startCountingServer } from './helpers/counting-server.js'
import type { CountingServer } from './helpers/counting-server.js'

/** A clock the test moves by hand. */
function fakeClock (start = 1_000_000): { now: () => number, advance: (ms: number) => void } {
  let time = start
  return { now: () => time, advance: ms => { time += ms } }
}

const auth = (token: string): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${token}` } })
const answeredFor = (d: Discovery): unknown => (d.capabilities.experimental as any).answeredFor.authorization

async function setup (t: { teardown: (fn: () => Promise<void>) => void }): Promise<{ server: CountingServer, clock: ReturnType<typeof fakeClock> }> {
  const server = await startCountingServer()
  t.teardown(server.close)
  return { server, clock: fakeClock() }
}

t.test('a fresh entry is a hit; it expires exactly at receivedAt + ttlMs', async t => {
  const { server, clock } = await setup(t)
  server.hint = () => ({ ttlMs: 1000, cacheScope: 'private' })
  const cache = new DiscoverCache({ now: clock.now })
  const first = await cache.discover(server.url)
  t.equal(first.receivedAt, clock.now(), 'receivedAt comes from the injected clock')
  t.equal(await cache.discover(server.url), first, 'same object from the cache')
  clock.advance(999)
  t.equal(await cache.discover(server.url), first, 'still fresh 1 ms before expiry')
  t.equal(server.requests.length, 1)
  clock.advance(1)
  const second = await cache.discover(server.url)
  t.not(second, first, 'stale at now === receivedAt + ttlMs')
  t.equal(server.requests.length, 2)
  t.equal(cache.size, 1)
})

t.test('ttlMs 0 (and every hint that reads as 0) always refetches', async t => {
  const { server, clock } = await setup(t)
  for (const ttlMs of [0, undefined, -5, 1.5, '60000']) {
    server.requests.length = 0
    server.hint = () => ({ ttlMs, cacheScope: 'public' })
    const cache = new DiscoverCache({ now: clock.now })
    for (let i = 0; i < 3; i++) await cache.discover(server.url)
    t.equal(server.requests.length, 3, `ttlMs ${String(ttlMs)}: three requests`)
    t.equal(cache.size, 0, 'nothing stored')
  }
})

t.test('private answers are partitioned by credential', async t => {
  const { server, clock } = await setup(t)
  server.hint = () => ({ ttlMs: 60_000, cacheScope: 'private' })
  const cache = new DiscoverCache({ now: clock.now })
  const a = await cache.discover(server.url, auth('alice'))
  const b = await cache.discover(server.url, auth('bob'))
  const anon = await cache.discover(server.url)
  t.equal(server.requests.length, 3, 'one request per credential')
  t.equal(answeredFor(a), 'Bearer alice')
  t.equal(answeredFor(b), 'Bearer bob', 'bob never sees alice\'s answer')
  t.equal(answeredFor(anon), null)
  t.equal(await cache.discover(server.url, auth('alice')), a, 'alice hits her own entry')
  t.equal(await cache.discover(server.url, auth('bob')), b)
  t.equal(await cache.discover(server.url), anon)
  t.equal(server.requests.length, 3)
  // Header names are case-insensitive; the value is the credential
  t.equal(await cache.discover(server.url, { headers: { Authorization: 'Bearer alice' } }), a)
  t.not(await cache.discover(server.url, { headers: { authorization: 'bearer alice' } }), a, 'a different value is a different credential')
})

t.test('cookies are a credential too; other headers are not', async t => {
  const { server, clock } = await setup(t)
  const cache = new DiscoverCache({ now: clock.now })
  await cache.discover(server.url, { headers: { cookie: 'sid=1' } })
  await cache.discover(server.url, { headers: { cookie: 'sid=2' } })
  t.equal(server.requests.length, 2)
  await cache.discover(server.url, { headers: { cookie: 'sid=1', 'x-trace': 'abc' } })
  t.equal(server.requests.length, 2, 'a non-credential header does not split entries')
})

t.test('credentialHeaders extends what identifies a caller', async t => {
  const { server, clock } = await setup(t)
  const cache = new DiscoverCache({ now: clock.now, credentialHeaders: ['authorization', 'x-api-key'] })
  await cache.discover(server.url, { headers: { 'x-api-key': 'k1' } })
  await cache.discover(server.url, { headers: { 'x-api-key': 'k2' } })
  await cache.discover(server.url, { headers: { 'x-api-key': 'k1' } })
  t.equal(server.requests.length, 2)
})

t.test('the credential key is a digest, never the secret', async t => {
  const secret = 'Bearer s3cr3t-token-value'
  const key = await credentialKey(new Headers({ authorization: secret }))
  t.match(key, /^sha256:[0-9a-f]{64}$/)
  t.notMatch(key, /s3cr3t/)
  t.equal(await credentialKey(new Headers({ Authorization: secret })), key, 'deterministic, case-insensitive names')
  t.not(await credentialKey(new Headers({ authorization: secret + 'x' })), key)
  t.equal(await credentialKey(new Headers()), 'anonymous')
  // authorization "a" + cookie "b" must not collide with other splits of the same text
  t.not(
    await credentialKey(new Headers({ authorization: 'a', cookie: 'b' })),
    await credentialKey(new Headers({ authorization: 'ab' }))
  )
})

t.test('public answers are shared across credentials', async t => {
  const { server, clock } = await setup(t)
  server.hint = () => ({ ttlMs: 60_000, cacheScope: 'public' })
  const cache = new DiscoverCache({ now: clock.now })
  const a = await cache.discover(server.url, auth('alice'))
  t.equal(await cache.discover(server.url, auth('bob')), a)
  t.equal(await cache.discover(server.url), a)
  t.equal(server.requests.length, 1)
})

t.test('a scope that is not exactly "public" is never shared', async t => {
  const { server, clock } = await setup(t)
  for (const cacheScope of [undefined, 'PUBLIC', 'shared', null]) {
    server.requests.length = 0
    server.hint = () => ({ ttlMs: 60_000, cacheScope })
    const cache = new DiscoverCache({ now: clock.now })
    await cache.discover(server.url, auth('alice'))
    const b = await cache.discover(server.url, auth('bob'))
    t.equal(server.requests.length, 2, `${String(cacheScope)}: bob gets his own request`)
    t.equal(answeredFor(b), 'Bearer bob')
  }
})

t.test('one endpoint, mixed scopes: a credential\'s own private entry comes before the public one', async t => {
  const { server, clock } = await setup(t)
  // The server shares its anonymous answer and keeps the authenticated one private.
  server.hint = req => ({ ttlMs: 60_000, cacheScope: req.authorization === null ? 'public' : 'private' })
  const cache = new DiscoverCache({ now: clock.now })
  const alice = await cache.discover(server.url, auth('alice'))
  const anon = await cache.discover(server.url)
  t.equal(server.requests.length, 2, 'alice\'s private entry does not serve the anonymous caller')
  t.equal(await cache.discover(server.url, auth('alice')), alice, 'alice keeps her own answer')
  t.equal(await cache.discover(server.url), anon)
  // A public answer may serve any authorization context (2026-07-28 cacheScope), so bob gets it.
  t.equal(await cache.discover(server.url, auth('bob')), anon)
  t.equal(server.requests.length, 2)
})

t.test('concurrent misses for the same key share one request', async t => {
  const { server, clock } = await setup(t)
  let open!: () => void
  server.gate = new Promise(resolve => { open = resolve })
  const cache = new DiscoverCache({ now: clock.now })
  const calls = Array.from({ length: 5 }, async () => await cache.discover(server.url, auth('alice')))
  const other = cache.discover(server.url, auth('bob'))
  await waitFor(() => server.requests.length === 2)
  open()
  const results = await Promise.all(calls)
  t.equal(server.requests.length, 2, 'five alice calls were one request, bob had his own')
  for (const r of results) t.equal(r, results[0])
  t.equal(answeredFor(await other), 'Bearer bob')
})

t.test('coalescing holds for ttlMs 0 answers too, and never caches them', async t => {
  const { server, clock } = await setup(t)
  server.hint = () => ({ ttlMs: 0 })
  let open!: () => void
  server.gate = new Promise(resolve => { open = resolve })
  const cache = new DiscoverCache({ now: clock.now })
  const calls = [cache.discover(server.url), cache.discover(server.url)]
  await waitFor(() => server.requests.length === 1)
  open()
  await Promise.all(calls)
  t.equal(server.requests.length, 1)
  server.gate = null
  await cache.discover(server.url)
  t.equal(server.requests.length, 2, 'the next call refetches')
})

t.test('one waiter aborting does not cancel the shared request', async t => {
  const { server, clock } = await setup(t)
  let open!: () => void
  server.gate = new Promise(resolve => { open = resolve })
  const cache = new DiscoverCache({ now: clock.now })
  const controller = new AbortController()
  const leaving = cache.discover(server.url, { signal: controller.signal })
  const staying = cache.discover(server.url)
  await waitFor(() => server.requests.length === 1)
  controller.abort(new Error('bye'))
  await t.rejects(leaving, DiscoverAbortError)
  open()
  t.equal((await staying).era, 'modern')
  t.equal(server.requests.length, 1)
  t.equal(cache.size, 1, 'the shared answer was still stored')
})

t.test('least recently used entries are evicted first', async t => {
  const { server, clock } = await setup(t)
  const cache = new DiscoverCache({ now: clock.now, maxEntries: 2 })
  const u1 = `${server.origin}/one`
  const u2 = `${server.origin}/two`
  const u3 = `${server.origin}/three`
  await cache.discover(u1)
  await cache.discover(u2)
  await cache.discover(u1) // u1 is now the most recently used
  t.equal(server.requests.length, 2)
  await cache.discover(u3) // evicts u2
  t.equal(cache.size, 2)
  await cache.discover(u1)
  await cache.discover(u3)
  t.equal(server.requests.length, 3, 'u1 and u3 still cached')
  await cache.discover(u2)
  t.same(server.requests.map(r => r.path), ['/one', '/two', '/three', '/two'], 'u2 had been evicted')
})

t.test('maxTtlMs clamps a long server ttlMs', async t => {
  const { server, clock } = await setup(t)
  server.hint = () => ({ ttlMs: 3_600_000, cacheScope: 'public' })
  const cache = new DiscoverCache({ now: clock.now, maxTtlMs: 100 })
  const first = await cache.discover(server.url)
  t.equal(first.ttlMs, 3_600_000, 'the answer still says what the server said')
  clock.advance(99)
  await cache.discover(server.url)
  t.equal(server.requests.length, 1)
  clock.advance(1)
  await cache.discover(server.url)
  t.equal(server.requests.length, 2, 'refetched at the clamp')

  const never = new DiscoverCache({ now: clock.now, maxTtlMs: 0 })
  await never.discover(server.url)
  await never.discover(server.url)
  t.equal(server.requests.length, 4, 'maxTtlMs 0 disables caching')
  t.equal(never.size, 0)
})

t.test('a shorter server ttlMs wins over the clamp', async t => {
  const { server, clock } = await setup(t)
  server.hint = () => ({ ttlMs: 50, cacheScope: 'public' })
  const cache = new DiscoverCache({ now: clock.now, maxTtlMs: 10_000 })
  await cache.discover(server.url)
  clock.advance(50)
  await cache.discover(server.url)
  t.equal(server.requests.length, 2)
})

t.test('invalidate(url) and invalidate()', async t => {
  const { server, clock } = await setup(t)
  const cache = new DiscoverCache({ now: clock.now })
  const u1 = `${server.origin}/one`
  const u2 = `${server.origin}/two`
  await cache.discover(u1, auth('alice'))
  await cache.discover(u1, auth('bob'))
  await cache.discover(u2)
  t.equal(cache.size, 3)
  cache.invalidate(u1 + '#fragment') // same endpoint
  t.equal(cache.size, 1, 'every credential of u1 forgotten')
  await cache.discover(u2)
  t.equal(server.requests.length, 3, 'u2 kept')
  await cache.discover(u1, auth('alice'))
  t.equal(server.requests.length, 4, 'u1 refetched')
  cache.invalidate()
  t.equal(cache.size, 0)
  await cache.discover(u2)
  t.equal(server.requests.length, 5)
})

t.test('an answer requested before invalidate() is not stored after it', async t => {
  const { server, clock } = await setup(t)
  let open!: () => void
  server.gate = new Promise(resolve => { open = resolve })
  const cache = new DiscoverCache({ now: clock.now })
  const pending = cache.discover(server.url)
  await waitFor(() => server.requests.length === 1)
  cache.invalidate(server.url)
  open()
  await pending
  t.equal(cache.size, 0)
  server.gate = null
  await cache.discover(server.url)
  t.equal(server.requests.length, 2)
})

t.test('failures are not cached', async t => {
  const { server, clock } = await setup(t)
  let fail = true
  server.hint = () => fail ? { status: 500 } : { ttlMs: 60_000 }
  const cache = new DiscoverCache({ now: clock.now })
  await t.rejects(cache.discover(server.url), DiscoverHttpError)
  fail = false
  t.equal((await cache.discover(server.url)).era, 'modern')
  t.equal(server.requests.length, 2)
})

t.test('cached answers are frozen, so no caller can change what others see', async t => {
  const { server, clock } = await setup(t)
  const cache = new DiscoverCache({ now: clock.now })
  const found = await cache.discover(server.url)
  t.ok(Object.isFrozen(found))
  t.ok(Object.isFrozen(found.capabilities))
  t.ok(Object.isFrozen(found.supportedVersions))
  t.throws(() => { (found.supportedVersions as string[]).push('x') })
})

t.test('per-call options over cache defaults; the timeout is the cache\'s', async t => {
  const { server, clock } = await setup(t)
  let seen: Headers | undefined
  const cache = new DiscoverCache({
    now: clock.now,
    headers: { 'x-tenant': 't1', authorization: 'Bearer default' },
    fetch: async (url, init) => {
      seen = new Headers(init.headers)
      return await fetch(url, init)
    }
  })
  const found = await cache.discover(server.url, auth('alice'))
  t.equal(seen?.get('x-tenant'), 't1', 'default headers sent')
  t.equal(seen?.get('authorization'), 'Bearer alice', 'call headers win')
  t.equal(answeredFor(found), 'Bearer alice')
})

t.test('options are checked', async t => {
  t.throws(() => new DiscoverCache({ maxEntries: 0 }), TypeError)
  t.throws(() => new DiscoverCache({ maxEntries: 1.5 }), TypeError)
  t.throws(() => new DiscoverCache({ maxTtlMs: -1 }), TypeError)
  t.throws(() => new DiscoverCache({ now: 5 as unknown as () => number }), TypeError)
  await t.rejects(new DiscoverCache().discover('nope'), TypeError)
})

async function waitFor (condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not reached')
    await new Promise(resolve => setTimeout(resolve, 5))
  }
}
