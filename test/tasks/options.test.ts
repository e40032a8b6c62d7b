// taskOptions is checked at registration like every option.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { SERVER_INFO, toolsModule } from '../helpers/mcp-fixtures.js'

async function registerError (options: unknown): Promise<{ code?: string, message?: string } | undefined> {
  const app = Fastify()
  try {
    await app.register(mcpCapabilities, options as McpCapabilitiesOptions)
    await app.ready()
    return undefined
  } catch (err) {
    return err as { code?: string, message?: string }
  } finally {
    await app.close()
  }
}

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
    const err = await registerError({ ...base, taskOptions })
    t.equal(err?.code, 'FST_MCP_INVALID_OPTION', `${JSON.stringify(taskOptions)}: coded error`)
    t.match(err?.message, field, `${JSON.stringify(taskOptions)}: names ${field}`)
  }
})

t.test('good taskOptions register', async (t) => {
  t.equal(await registerError({ ...base, taskOptions: { ttlMs: 1000, pollIntervalMs: 100, maxTasks: 5, owner: () => 'x' } }), undefined)
  t.equal(await registerError({ ...base, taskOptions: {} }), undefined)
})
