// `tasks` (true or its settings) is checked at registration like every option.
import t from 'tap'
import { resolveOptions } from '../../lib/options.js'
import { registrationError, SERVER_INFO, toolsModule } from '../helpers/mcp-fixtures.js'

const base = { server: toolsModule(), serverInfo: SERVER_INFO }

t.test('bad tasks settings fail registration with FST_MCP_INVALID_OPTION naming the field', async (t) => {
  const cases: Array<[unknown, string]> = [
    [null, '"tasks"'],
    ['fast', '"tasks"'],
    [1, '"tasks"'],
    [{ ttlMs: 0 }, '"tasks.ttlMs"'],
    [{ ttlMs: 1.5 }, '"tasks.ttlMs"'],
    [{ ttlMs: 2 ** 31 }, '"tasks.ttlMs"'],
    [{ pollIntervalMs: -1 }, '"tasks.pollIntervalMs"'],
    [{ maxTasks: 0 }, '"tasks.maxTasks"'],
    [{ maxTasks: '10' }, '"tasks.maxTasks"'],
    [{ maxArgumentBytes: 0 }, '"tasks.maxArgumentBytes"'],
    [{ owner: 'authorization' }, '"tasks.owner"'],
    // The store is a shared part: it lives in `scale`, nowhere else.
    [{ store: () => ({}) }, '"tasks.store": unknown option'],
    [{ maxTask: 5 }, '"tasks.maxTask": unknown option (known: ttlMs, pollIntervalMs, maxTasks, maxTasksPerOwner, maxTaskBytes, maxStoredBytes, maxArgumentBytes, owner); did you mean "maxTasks"?']
  ]
  for (const [tasks, field] of cases) {
    const err = await registrationError({ ...base, tasks })
    t.equal(err?.code, 'FST_MCP_INVALID_OPTION', `${JSON.stringify(tasks)}: coded error`)
    t.ok(err?.message.includes(field), `${JSON.stringify(tasks)}: names ${field} (${err?.message})`)
  }
  const err = await registrationError({ ...base, tasks: true, scale: { taskStore: {} } })
  t.match(err, { code: 'FST_MCP_INVALID_OPTION', message: /"scale\.taskStore": expected a function of the task limits/ })
})

t.test('good tasks settings register', async (t) => {
  t.equal(await registrationError({ ...base, tasks: { ttlMs: 1000, pollIntervalMs: 100, maxTasks: 5, owner: () => 'x' } }), undefined)
  t.equal(await registrationError({ ...base, tasks: {} }), undefined)
  t.equal(await registrationError({ ...base, tasks: true }), undefined)
  t.equal(await registrationError({ ...base, tasks: false }), undefined)
})

t.test('tasks: off by default and with false; true and {} take every default; settings reach the limits', async (t) => {
  t.equal(resolveOptions(base).tasks, undefined)
  t.equal(resolveOptions({ ...base, tasks: false }).tasks, undefined)
  const defaults = { ttlMs: 3_600_000, pollIntervalMs: 1000, maxTasks: 1000, maxTasksPerOwner: 100, maxTaskBytes: 1024 * 1024, maxStoredBytes: 64 * 1024 * 1024 }
  for (const tasks of [true, {}]) {
    const resolved = resolveOptions({ ...base, tasks }).tasks
    t.strictSame(resolved?.limits, defaults, `${JSON.stringify(tasks)}: the default limits`)
    t.equal(resolved?.maxArgumentBytes, 65536)
    t.equal(resolved?.owner, undefined, 'the caller owns its tasks unless told otherwise')
    t.ok(Object.isFrozen(resolved?.limits), 'the limits are frozen')
  }
  const owner = (): string => 'tenant'
  const set = resolveOptions({ ...base, tasks: { maxTasks: 35, maxTaskBytes: 128 * 1024 * 1024, maxArgumentBytes: 10, owner } }).tasks
  t.equal(set?.limits.maxTasksPerOwner, 4, 'a tenth of maxTasks, rounded up')
  t.equal(set?.limits.maxStoredBytes, 128 * 1024 * 1024, 'the stored bound grows to hold one task')
  t.equal(set?.maxArgumentBytes, 10)
  t.equal(set?.owner, owner)
})
