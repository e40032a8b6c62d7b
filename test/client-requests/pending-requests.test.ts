/**
 * The legacy correlation map on its own: answers settle the right request,
 * errors become McpError, unknown ids are ignored, timeouts and close reject,
 * and no timer outlives its request.
 */
import t, { type Test } from 'tap'
import { McpError } from '../../lib/protocol/mcp-error.js'
import { PendingRequests, REQUEST_TIMEOUT_CODE } from '../../lib/input/pending-requests.js'

const ALICE = 'sha256:alice'

/** Counts the timers created and cleared while `fn` runs, and whether they were unref'd. */
async function watchTimers (t: Test, fn: () => Promise<void>): Promise<{ created: number, cleared: number, unrefd: number }> {
  const realSet = globalThis.setTimeout
  const realClear = globalThis.clearTimeout
  const live = new Set<unknown>()
  let created = 0
  let cleared = 0
  let unrefd = 0
  globalThis.setTimeout = ((handler: () => void, ms?: number) => {
    const timer = realSet(() => { live.delete(timer); handler() }, ms)
    const unref = timer.unref.bind(timer)
    timer.unref = () => { unrefd++; return unref() }
    live.add(timer)
    created++
    return timer
  }) as typeof setTimeout
  globalThis.clearTimeout = ((timer: NodeJS.Timeout) => {
    if (live.delete(timer)) cleared++
    realClear(timer)
  }) as typeof clearTimeout
  try {
    await fn()
  } finally {
    globalThis.setTimeout = realSet
    globalThis.clearTimeout = realClear
  }
  t.equal(live.size, 0, 'no timer is left running')
  return { created, cleared, unrefd }
}

t.test('a result settles its request; the id is then unknown', async (t) => {
  const counts = await watchTimers(t, async () => {
    const pending = new PendingRequests(60_000)
    const a = pending.create('elicitation/create', ALICE)
    const b = pending.create('roots/list', ALICE)
    t.not(a.id, b.id, 'ids differ')
    t.match(a.id, /^[0-9a-f-]{36}$/, 'a UUID')
    t.equal(pending.size, 2)
    t.equal(pending.settle({ jsonrpc: '2.0', id: b.id, result: { roots: [] } }, ALICE), true)
    t.strictSame(await b.promise, { roots: [] })
    t.equal(pending.settle({ jsonrpc: '2.0', id: b.id, result: { roots: [] } }, ALICE), false, 'a second answer is ignored')
    t.equal(pending.settle({ jsonrpc: '2.0', id: 'nobody', result: {} }, ALICE), false, 'an unknown id is ignored')
    t.equal(pending.settle({ jsonrpc: '2.0', id: 7, result: {} }, ALICE), false, 'a numeric id is never ours')
    t.equal(pending.settle(null, ALICE), false)
    t.equal(pending.size, 1, 'only the answered request left')
    pending.cancel(a.id, 'gone')
    await t.rejects(a.promise, { code: -32603, message: 'gone' })
    t.equal(pending.size, 0)
  })
  t.strictSame(counts, { created: 2, cleared: 2, unrefd: 2 }, 'each request had one unref\'d timer, cleared when it settled')
})

t.test('an error answer rejects with the client\'s code, message and data', async (t) => {
  const pending = new PendingRequests(60_000)
  const { id, promise } = pending.create('sampling/createMessage', ALICE)
  pending.settle({ jsonrpc: '2.0', id, error: { code: -1, message: 'User rejected sampling request', data: { why: 'no' } } }, ALICE)
  const err = await promise.catch((e: unknown) => e)
  t.ok(err instanceof McpError)
  t.match(err, { code: -1, data: { why: 'no' }, message: /sampling\/createMessage.*User rejected sampling request/ })
  const second = pending.create('roots/list', ALICE)
  pending.settle({ jsonrpc: '2.0', id: second.id, result: 'not an object' }, ALICE)
  await t.rejects(second.promise, { code: -32603, message: /without a result object/ })
})

t.test('no answer in time rejects with the timeout code', async (t) => {
  const pending = new PendingRequests(20)
  const { promise } = pending.create('elicitation/create', ALICE)
  // The request's timer is unref'd: something else must keep this test process alive meanwhile.
  const keepAlive = setTimeout(() => {}, 5000)
  t.teardown(() => clearTimeout(keepAlive))
  await t.rejects(promise, { code: REQUEST_TIMEOUT_CODE, message: /did not answer elicitation\/create within 20 ms/ })
  t.equal(pending.size, 0)
})

t.test('close rejects everything waiting, clears the timers and refuses new requests', async (t) => {
  const counts = await watchTimers(t, async () => {
    const pending = new PendingRequests(60_000)
    const waiting = [pending.create('elicitation/create', ALICE), pending.create('roots/list', ALICE)]
    pending.close()
    for (const { promise } of waiting) await t.rejects(promise, { code: REQUEST_TIMEOUT_CODE, message: /server is closing/ })
    t.equal(pending.size, 0)
    await t.rejects(pending.create('roots/list', ALICE).promise, { message: /server is closing/ }, 'no request after close')
  })
  t.equal(counts.created, counts.cleared, 'every timer created was cleared')
})

t.test('a request nobody awaits does not become an unhandled rejection', async (t) => {
  const unhandled: unknown[] = []
  const listener = (reason: unknown): void => { unhandled.push(reason) }
  process.on('unhandledRejection', listener)
  t.teardown(() => process.off('unhandledRejection', listener))
  const pending = new PendingRequests(60_000)
  pending.create('roots/list', ALICE)
  pending.close()
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.strictSame(unhandled, [])
})

t.test('only the caller a question was asked of can answer it', async (t) => {
  const pending = new PendingRequests(60_000)
  t.teardown(() => pending.close())
  const { id, promise } = pending.create('elicitation/create', ALICE)
  t.equal(pending.settle({ jsonrpc: '2.0', id, result: { action: 'accept' } }, 'sha256:mallory'), false, "another caller's answer settles nothing")
  t.equal(pending.settle({ jsonrpc: '2.0', id, result: { action: 'accept' } }, 'anonymous'), false, 'nor an anonymous one')
  t.equal(pending.size, 1, 'the question still waits')
  t.equal(pending.settle({ jsonrpc: '2.0', id, result: { action: 'decline' } }, ALICE), true)
  t.strictSame(await promise, { action: 'decline' })
})
