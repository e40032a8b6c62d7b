// Options are checked at registration: each bad value fails `register` with
// a coded error (TypeError base for wrong types), never a request later.
import Fastify from 'fastify'
import t from 'tap'
import type { Test as Tap } from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { buildApp, fullModule, registrationError, SERVER_INFO, toolsModule } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

/** Registers with `options` and expects the coded error: code, base class, and the option named in the message. */
async function rejects (t: Parameters<typeof buildApp>[0] & Pick<Tap, 'ok' | 'equal' | 'match'>, options: unknown, code: string, mentions: string | RegExp, typeError = true): Promise<void> {
  const label = `${JSON.stringify(options, (_k, v) => typeof v === 'function' ? 'fn' : v)?.slice(0, 100)} -> ${code}`
  const error = await registrationError(options)
  t.ok(error instanceof Error, `${label}: registration fails`)
  const { code: found, message } = (error ?? {}) as { code?: string, message?: string }
  t.equal(found, code, `${label}: code`)
  t.match(message, typeof mentions === 'string' ? new RegExp(mentions.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : mentions, `${label}: message names the problem`)
  if (typeError) t.ok(error instanceof TypeError, `${label}: a TypeError`)
}

const base = { server: fullModule(), serverInfo: SERVER_INFO }

t.test('unknown option keys (typos) -> FST_MCP_INVALID_OPTION naming the key', async (t) => {
  for (const key of ['allowedOrigin', 'Era', 'ttlMs', 'capabilities']) {
    await rejects(t, { ...base, [key]: true }, 'FST_MCP_INVALID_OPTION', key)
  }
})

t.test('null is not "use the default" -> coded error', async (t) => {
  await rejects(t, { ...base, era: null }, 'FST_MCP_INVALID_ERA', 'null')
  for (const key of ['path', 'tasks', 'bodyLimit', 'instructions', 'discover', 'cache', 'allowedOrigins', 'allowedHosts']) {
    await rejects(t, { ...base, [key]: null }, 'FST_MCP_INVALID_OPTION', key)
  }
})

t.test('Fastify\'s own register options are accepted beside ours', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { ...base, prefix: '/api', logLevel: 'warn' } as McpCapabilitiesOptions)
  await app.ready()
  const reply = await app.inject({ method: 'GET', url: '/api/mcp' })
  t.equal(reply.statusCode, 405, 'the endpoint is mounted under the prefix')
  t.equal(app.mcp.path, '/api/mcp', 'fastify.mcp.path is the mounted path')
})

t.test('server: missing or not an object -> FST_MCP_INVALID_SERVER', async (t) => {
  for (const server of [undefined, null, 'server', 42, () => ({}), class Server {}]) {
    await rejects(t, { ...base, server }, 'FST_MCP_INVALID_SERVER', 'server')
  }
  await rejects(t, { serverInfo: SERVER_INFO }, 'FST_MCP_INVALID_SERVER', 'server')
})

t.test('server: an array is not a server module -> FST_MCP_INVALID_SERVER', async (t) => {
    await rejects(t, { ...base, server: [] }, 'FST_MCP_INVALID_SERVER', 'server')
  })

t.test('serverInfo: bad values -> FST_MCP_INVALID_OPTION naming the field', async (t) => {
  const cases: Array<[unknown, string]> = [
    [undefined, 'serverInfo'],
    ['fixture', 'serverInfo'],
    [{ version: '1' }, 'serverInfo.name'],
    [{ name: '', version: '1' }, 'serverInfo.name'],
    [{ name: 'x' }, 'serverInfo.version'],
    [{ name: 'x', version: 1 }, 'serverInfo.version'],
    [{ name: 'x', version: '1', title: 5 }, 'serverInfo.title'],
    [{ name: 'x', version: '1', description: {} }, 'serverInfo.description'],
    [{ name: 'x', version: '1', websiteUrl: 'not a url' }, 'serverInfo.websiteUrl'],
    [{ name: 'x', version: '1', icons: 'icon.png' }, 'serverInfo.icons'],
    [{ name: 'x', version: '1', icons: [{ mimeType: 'image/png' }] }, 'serverInfo.icons']
  ]
  for (const [serverInfo, field] of cases) await rejects(t, { ...base, serverInfo }, 'FST_MCP_INVALID_OPTION', `"${field}"`)
})

t.test('era: unknown value -> FST_MCP_INVALID_ERA listing the valid ones', async (t) => {
  for (const era of ['both', 'Legacy', '', 1]) {
    await rejects(t, { ...base, era }, 'FST_MCP_INVALID_ERA', /legacy, modern, dual/)
  }
})

t.test('path: not a string starting with / -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const path of ['mcp', '', 5]) await rejects(t, { ...base, path }, 'FST_MCP_INVALID_OPTION', '"path"')
})

t.test('instructions: not a string -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const instructions of [5, { text: 'x' }, ['a'], null]) await rejects(t, { ...base, instructions }, 'FST_MCP_INVALID_OPTION', '"instructions"')
})

for (const option of ['discover', 'cache'] as const) {
  t.test(`${option}: bad cache hints -> FST_MCP_INVALID_OPTION`, async (t) => {
    await rejects(t, { ...base, [option]: 'public' }, 'FST_MCP_INVALID_OPTION', `"${option}"`)
    await rejects(t, { ...base, [option]: [] }, 'FST_MCP_INVALID_OPTION', `"${option}"`)
    for (const ttlMs of [-1, 1.5, '5', NaN, Infinity, 2 ** 60, null]) {
      await rejects(t, { ...base, [option]: { ttlMs } }, 'FST_MCP_INVALID_OPTION', `"${option}.ttlMs"`)
    }
    for (const cacheScope of ['shared', 'PUBLIC', '', 1, null]) {
      await rejects(t, { ...base, [option]: { cacheScope } }, 'FST_MCP_INVALID_OPTION', `"${option}.cacheScope"`)
    }
  })
}

t.test('allowedOrigins: bad values -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const allowedOrigins of ['https://app.example.com', false, [''], [5], ['not a url'], {}]) {
    await rejects(t, { ...base, allowedOrigins }, 'FST_MCP_INVALID_OPTION', '"allowedOrigins"')
  }
})

t.test('allowedHosts: bad values -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const allowedHosts of ['localhost', false, [''], [1], {}]) {
    await rejects(t, { ...base, allowedHosts }, 'FST_MCP_INVALID_OPTION', '"allowedHosts"')
  }
})

t.test('tasks: not a boolean -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const tasks of ['yes', 1, {}]) await rejects(t, { ...base, tasks }, 'FST_MCP_INVALID_OPTION', '"tasks"')
})

t.test('bodyLimit: not a positive integer -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const bodyLimit of [0, -1, 1.5, '1000', Infinity]) await rejects(t, { ...base, bodyLimit }, 'FST_MCP_INVALID_OPTION', '"bodyLimit"')
})

t.test('a capability without all its handlers -> FST_MCP_MISSING_HANDLER', async (t) => {
  const cases: Array<[object, string]> = [
    [{ listTools: () => ({ tools: [] }) }, 'callTool'],
    [{ listResources: () => ({ resources: [] }) }, 'readResource'],
    [{ listPrompts: () => ({ prompts: [] }) }, 'getPrompt'],
    [{ capabilities: { tools: {} } }, 'listTools'],
    [{ ...toolsModule(), capabilities: { tools: {}, completions: {} } }, 'complete']
  ]
  for (const [server, handler] of cases) await rejects(t, { ...base, server }, 'FST_MCP_MISSING_HANDLER', handler, false)
})

t.test('a module declaring unknown capabilities -> FST_MCP_INVALID_CAPABILITIES', async (t) => {
  await rejects(t, { ...base, server: { ...toolsModule(), capabilities: { tool: {} } } }, 'FST_MCP_INVALID_CAPABILITIES', 'tool')
})

t.test('registered twice in one context -> FST_MCP_ALREADY_REGISTERED', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(mcpCapabilities, base)
  app.register(mcpCapabilities, { ...base, path: '/other' })
  await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_ALREADY_REGISTERED' })
})

t.test('one endpoint per encapsulated context is fine', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(async (child) => { await child.register(mcpCapabilities, { ...base, path: '/a', era: 'legacy' }) })
  app.register(async (child) => { await child.register(mcpCapabilities, { ...base, path: '/b', era: 'modern' }) })
  await app.ready()
  const a = await mcpClient(t, app, '/a').initialize('2025-11-25')
  t.equal(a.status, 200, '/a serves legacy')
  const b = await mcpClient(t, app, '/b').initialize('2025-11-25')
  t.equal(b.status, 400, '/b is modern only')
})

t.test('the path option moves the endpoint', async (t) => {
  const app = await buildApp(t, { path: '/api/v1/mcp' })
  t.equal(app.mcp.path, '/api/v1/mcp')
  t.equal((await mcpClient(t, app, '/api/v1/mcp').modern('server/discover')).status, 200)
  const old = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(old.statusCode, 404, 'nothing at /mcp')
})

t.test('good options register', async (t) => {
  const app = await buildApp(t, {
    era: 'modern',
    path: '/x',
    instructions: 'hi',
    discover: { ttlMs: 0, cacheScope: 'public' },
    cache: { ttlMs: () => 5, cacheScope: () => 'private' },
    allowedOrigins: ['https://a.example'],
    allowedHosts: ['a.example'],
    tasks: true,
    bodyLimit: 1
  })
  t.equal(app.mcp.era, 'modern')
})
