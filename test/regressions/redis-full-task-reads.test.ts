/**
 * Issue 22 item 11: with Redis full (`maxmemory` reached, policy
 * `noeviction`), Redis refuses every write and every MULTI, but still serves
 * reads. `tasks/get` must keep answering from the stored record, so it reads
 * without a write-flagged transaction. Against a real redis-server started
 * with a tiny `maxmemory`, filled by the test until it refuses writes.
 */
import { Redis } from 'ioredis'
import t from 'tap'
import { ErrorCode } from '../../lib/index.js'
import { redisTaskStore } from '../../lib/redis/redis-task-store.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { newProbe, tasksModule } from '../tasks/fixtures.js'
import { tasksClient } from '../tasks/helpers.js'

t.test('Redis out of memory: tasks/get still reads the task', async (t) => {
  const redis = await startRedisServer({ args: ['--maxmemory', '4mb', '--maxmemory-policy', 'noeviction'] })
  t.teardown(() => redis.close())
  const app = await buildApp(t, {
    server: tasksModule(newProbe()),
    tasks: true,
    requestState: { secret: 'redis-full-request-state-secret-0123456789' },
    scale: { taskStore: redisTaskStore({ url: redis.url, prefix: 'full:' }) }
  })
  const client = tasksClient(t, app)
  const taskId = (await client.call('maybe', { label: 'kept' })).json.result.taskId
  let task: any
  for (let i = 0; i < 100 && task?.status !== 'completed'; i++) {
    task = (await client.get(taskId)).json.result
    if (task?.status !== 'completed') await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.equal(task?.status, 'completed', 'the task completed while Redis had room')

  // Fill Redis until it refuses writes.
  const filler = new Redis(redis.url, { maxRetriesPerRequest: 1 })
  t.teardown(() => filler.disconnect())
  let refused: Error | undefined
  for (let i = 0; i < 1000 && refused === undefined; i++) {
    await filler.set(`fill:${i}`, 'x'.repeat(64 * 1024)).catch((err: Error) => { refused = err })
  }
  t.match(refused?.message, /^OOM/, 'Redis is full: writes are refused')
  // Hold it full: the limit goes just under what is used (a refused write's own buffer is freed after it).
  const used = Number(/used_memory:(\d+)/.exec(await filler.info('memory'))?.[1])
  await filler.config('SET', 'maxmemory', String(used - 64 * 1024))
  t.rejects(filler.set('one-more', 'x'), /^OOM/, 'even a small write is refused')
  const multi = await filler.multi().get('fill:0').exec().then((results) => JSON.stringify(results), (err: Error) => err.message)
  t.match(multi, /OOM|EXECABORT/, 'and so is MULTI, even around a read')

  const read = await client.get(taskId)
  t.equal(read.json.error, undefined, 'tasks/get is answered, not an internal error')
  t.equal(read.json.result?.status, 'completed')
  t.strictSame(read.json.result?.result?.content, [{ type: 'text', text: 'maybe kept (task)' }], 'with the stored result')
  t.equal((await client.get(taskId, { headers: { authorization: 'Bearer someone-else' } })).json.error?.code, ErrorCode.InvalidParams,
    'still bound to its owner')
})
