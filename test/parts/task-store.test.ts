import t from 'tap'
import { MemoryTaskStore } from '../../lib/parts/task-store.js'
import { taskStoreContract } from './task-store-contract.js'

taskStoreContract(t, (limits) => new MemoryTaskStore(limits))

t.test('memory store: counts what it holds, and close empties it', async (t) => {
  const store = new MemoryTaskStore({ ttlMs: 60_000, pollIntervalMs: 1000, maxTasks: 10, maxTasksPerOwner: 10, maxTaskBytes: 10_000, maxStoredBytes: 100_000 })
  const made = await store.create('a')
  if (!made.ok) throw new Error('refused')
  await store.complete(made.task.taskId, { content: [{ type: 'text', text: 'hello' }] })
  t.equal(store.size, 1)
  t.equal(store.bytes, Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text: 'hello' }] })), 'bytes are the JSON held')
  await store.close()
  t.equal(store.size, 0)
  t.equal(store.bytes, 0)
  t.match(await store.create('a'), { ok: false, reason: 'closed' })
})
