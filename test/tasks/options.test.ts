// taskOptions is checked at registration like every option.
import t from 'tap'
import { registrationError, SERVER_INFO, toolsModule } from '../helpers/mcp-fixtures.js'

const base = { server: toolsModule(), serverInfo: SERVER_INFO, tasks: true }

t.test('bad taskOptions fail registration with FST_MCP_INVALID_OPTION naming the field', async (t) => {
  const cases: Array<[unknown, string]> = [
    [null, 'taskOptions'],
    ['fast', 'taskOptions'],
    [{ ttlMs: 0 }, 'taskOptions.ttlMs'],
    [{ ttlMs: 1.5 }, 'taskOptions.ttlMs'],
    [{ ttlMs: 2 ** 31 }, 'taskOptions.ttlMs'],
    [{ pollIntervalMs: -1 }, 'taskOptions.pollIntervalMs'],
    [{ maxTasks: 0 }, 'taskOptions.maxTasks'],
    [{ maxTasks: '10' }, 'taskOptions.maxTasks'],
    [{ owner: 'authorization' }, 'taskOptions.owner']
  ]
  for (const [taskOptions, field] of cases) {
    const err = await registrationError({ ...base, taskOptions })
    t.equal(err?.code, 'FST_MCP_INVALID_OPTION', `${JSON.stringify(taskOptions)}: coded error`)
    t.match(err?.message, field, `${JSON.stringify(taskOptions)}: names ${field}`)
  }
})

t.test('good taskOptions register', async (t) => {
  t.equal(await registrationError({ ...base, taskOptions: { ttlMs: 1000, pollIntervalMs: 100, maxTasks: 5, owner: () => 'x' } }), undefined)
  t.equal(await registrationError({ ...base, taskOptions: {} }), undefined)
})
