// Options are checked at registration: each bad value fails `register` with
// a coded error (TypeError base for wrong types), never a request later.
import Fastify from 'fastify'
import t from 'tap'
import type { Test as Tap } from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { resolveOptions } from '../../lib/options.js'
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
  for (const key of ['allowedOrigins', 'Era', 'ttlMs', 'capabilities', 'keepAliveMs', 'eventBus']) {
    await rejects(t, { ...base, [key]: true }, 'FST_MCP_INVALID_OPTION', `"${key}": unknown option (known: server, serverInfo, era, path,`)
  }
})

t.test('unknown keys are refused at every level, naming the exact path, the known keys and the near miss', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ allowedOrigins: true }, '"allowedOrigins": unknown option (known: server, serverInfo, era, path, instructions, security, authorization, tasks, sessions, scale, requestState, cacheHints, limits, validate, routes, telemetry)'],
    [{ security: { allowedOrigin: true } }, '"security.allowedOrigin": unknown option (known: allowedOrigins, allowedHosts, toolErrors); did you mean "allowedOrigins"?'],
    [{ Era: 'dual' }, '"Era": unknown option (known: server, serverInfo, era, path, instructions, security, authorization, tasks, sessions, scale, requestState, cacheHints, limits, validate, routes, telemetry); did you mean "era"?'],
    [{ serverInfo: { ...SERVER_INFO, titel: 'x' } }, '"serverInfo.titel": unknown option (known: name, version, title, description, websiteUrl, icons); did you mean "title"?'],
    [{ serverInfo: { ...SERVER_INFO, icons: [{ src: 'https://x.example/i.png', size: '48x48' }] } }, '"serverInfo.icons[0].size": unknown option (known: src, mimeType, sizes, theme); did you mean "sizes"?'],
    [{ tasks: { ttl: 5 } }, '"tasks.ttl": unknown option (known: ttlMs,'],
    [{ scale: { store: () => ({}) } }, '"scale.store": unknown option (known: eventBus, answerRouter, taskStore, catalogStore, sessionStore)'],
    [{ requestState: { ttl: 5 } }, '"requestState.ttl": unknown option (known: secret, ttlMs)'],
    [{ cacheHints: { result: {} } }, '"cacheHints.result": unknown option (known: discover, results); did you mean "results"?'],
    [{ cacheHints: { discover: { scope: 'public' } } }, '"cacheHints.discover.scope": unknown option (known: ttlMs, cacheScope)'],
    [{ limits: { bodyLimits: 5 } }, '"limits.bodyLimits": unknown option (known: bodyLimit, handlerTimeoutMs, clientRequestTimeoutMs, maxStreamBufferBytes, maxArgumentValues, listPageSize, listen); did you mean "bodyLimit"?'],
    [{ limits: { listen: { maxStream: 5 } } }, '"limits.listen.maxStream": unknown option (known: maxStreams, maxStreamsPerCaller, keepAliveMs); did you mean "maxStreams"?'],
    [{ validate: { result: true } }, '"validate.result": unknown option (known: results, paramHeaders); did you mean "results"?'],
    [{ authorization: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'], jwt: { issuer: 'x' } } }, '"authorization.jwt.issuer": unknown option (known: issuers, audience,'],
    [{ authorization: { resource: 'https://mcp.example.com/mcp', authorizationServers: ['https://as.example.com'], tokenCache: { maxEntrys: 1 } } }, '"authorization.tokenCache.maxEntrys": unknown option (known: maxEntries, maxTtlMs); did you mean "maxEntries"?']
  ]
  for (const [options, message] of cases) await rejects(t, { ...base, ...options }, 'FST_MCP_INVALID_OPTION', message)
})

t.test('each group takes only an object: another value names the group and what it takes', async (t) => {
  for (const group of ['security', 'scale', 'requestState', 'cacheHints', 'limits', 'validate']) {
    for (const value of [null, 'x', 1, [], true]) {
      await rejects(t, { ...base, [group]: value }, 'FST_MCP_INVALID_OPTION', new RegExp(`"${group}": expected an object \\{ `))
    }
  }
  await rejects(t, { ...base, limits: { listen: 5 } }, 'FST_MCP_INVALID_OPTION', '"limits.listen": expected an object { maxStreams?, maxStreamsPerCaller?, keepAliveMs? }')
})

t.test('every default, in the tree as given', async (t) => {
  const resolved = resolveOptions(base)
  t.strictSame({ ...resolved, server: undefined, serverInfo: undefined, requestState: { ...resolved.requestState, secret: undefined } }, {
    server: undefined,
    serverInfo: undefined,
    era: 'dual',
    path: '/mcp',
    instructions: undefined,
    security: { allowedOrigins: undefined, allowedHosts: undefined, toolErrors: 'message' },
    authorization: undefined,
    tasks: undefined,
    sessions: undefined,
    scale: { eventBus: undefined, answerRouter: undefined, taskStore: undefined, catalogStore: undefined, sessionStore: undefined },
    requestState: { secret: undefined, ttlMs: 900_000 },
    cacheHints: { discover: { ttlMs: 0, cacheScope: 'private' }, results: { ttlMs: 0, cacheScope: 'private' } },
    limits: {
      bodyLimit: 1024 * 1024,
      handlerTimeoutMs: 300_000,
      clientRequestTimeoutMs: 60_000,
      maxStreamBufferBytes: 256 * 1024,
      maxArgumentValues: 4096,
      listPageSize: undefined,
      listen: { maxStreams: 1000, maxStreamsPerCaller: 100, keepAliveMs: 15_000 }
    },
    validate: { results: false, paramHeaders: 'auto' },
    routes: undefined,
    telemetry: {}
  })
})

t.test('null is not "use the default" -> coded error', async (t) => {
  await rejects(t, { ...base, era: null }, 'FST_MCP_INVALID_ERA', 'null')
  for (const key of ['path', 'tasks', 'security', 'instructions', 'cacheHints', 'limits', 'validate', 'scale', 'requestState', 'authorization']) {
    await rejects(t, { ...base, [key]: null }, 'FST_MCP_INVALID_OPTION', `"${key}"`)
  }
  for (const [group, key] of [['limits', 'bodyLimit'], ['limits', 'listPageSize'], ['cacheHints', 'discover'], ['validate', 'results'], ['requestState', 'secret'], ['security', 'allowedOrigins'], ['security', 'allowedHosts'], ['security', 'toolErrors']] as const) {
    await rejects(t, { ...base, [group]: { [key]: null } }, 'FST_MCP_INVALID_OPTION', `"${group}.${key}"`)
  }
})

t.test('Fastify\'s own register options are accepted beside ours', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { ...base, prefix: '/api', logLevel: 'warn' } as McpCapabilitiesOptions)
  await app.ready()
  const reply = await app.inject({ method: 'GET', url: '/api/mcp' })
  t.equal(reply.statusCode, 406, 'the endpoint is mounted under the prefix (a GET without Accept: text/event-stream)')
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
    [{ name: 'x', version: '1', icons: [{ mimeType: 'image/png' }] }, 'serverInfo.icons[0].src'],
    [{ name: 'x', version: '1', icons: [{ src: 'https://x.example/i.png', theme: 'blue' }] }, 'serverInfo.icons[0].theme']
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

for (const option of ['discover', 'results'] as const) {
  t.test(`cacheHints.${option}: bad cache hints -> FST_MCP_INVALID_OPTION`, async (t) => {
    await rejects(t, { ...base, cacheHints: { [option]: 'public' } }, 'FST_MCP_INVALID_OPTION', `"cacheHints.${option}"`)
    await rejects(t, { ...base, cacheHints: { [option]: [] } }, 'FST_MCP_INVALID_OPTION', `"cacheHints.${option}"`)
    for (const ttlMs of [-1, 1.5, '5', NaN, Infinity, 2 ** 60, null]) {
      await rejects(t, { ...base, cacheHints: { [option]: { ttlMs } } }, 'FST_MCP_INVALID_OPTION', `"cacheHints.${option}.ttlMs"`)
    }
    for (const cacheScope of ['shared', 'PUBLIC', '', 1, null]) {
      await rejects(t, { ...base, cacheHints: { [option]: { cacheScope } } }, 'FST_MCP_INVALID_OPTION', `"cacheHints.${option}.cacheScope"`)
    }
  })
}

t.test('security.allowedOrigins: bad values -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const allowedOrigins of ['https://app.example.com', false, {}]) {
    await rejects(t, { ...base, security: { allowedOrigins } }, 'FST_MCP_INVALID_OPTION', '"security.allowedOrigins"')
  }
  for (const allowedOrigins of [[''], [5], ['not a url'], ['https://a.example', 'not a url']]) {
    await rejects(t, { ...base, security: { allowedOrigins } }, 'FST_MCP_INVALID_OPTION', `"security.allowedOrigins[${allowedOrigins.length - 1}]"`)
  }
})

t.test('security.allowedHosts: bad values -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const allowedHosts of ['localhost', false, {}]) {
    await rejects(t, { ...base, security: { allowedHosts } }, 'FST_MCP_INVALID_OPTION', '"security.allowedHosts": expected an array of non-empty strings, or true to allow any')
  }
  for (const allowedHosts of [[''], [1]]) await rejects(t, { ...base, security: { allowedHosts } }, 'FST_MCP_INVALID_OPTION', '"security.allowedHosts[0]": expected a non-empty string')
})

t.test('limits.listPageSize and security.toolErrors: bad values name their path', async (t) => {
  for (const listPageSize of [0, 10_001, 1.5, '10']) {
    await rejects(t, { ...base, limits: { listPageSize } }, 'FST_MCP_INVALID_OPTION', '"limits.listPageSize"')
  }
  await rejects(t, { ...base, security: { toolErrors: 'hide' } }, 'FST_MCP_INVALID_OPTION', '"security.toolErrors": expected one of "message", "mask"')
})

t.test('the tree stays small: at most 16 top-level options', async (t) => {
  const error = await registrationError({ ...base, __probe__: true }) as Error | undefined
  const known = /\(known: ([^)]*)\)/.exec(error?.message ?? '')?.[1]?.split(', ') ?? []
  t.ok(known.length > 10, `read the top-level keys (${known.join(', ')})`)
  t.ok(known.length <= 16, `${known.length} top-level options`)
})

t.test('tasks: not a boolean or its settings -> FST_MCP_INVALID_OPTION', async (t) => {
  for (const tasks of ['yes', 1, [], null]) await rejects(t, { ...base, tasks }, 'FST_MCP_INVALID_OPTION', '"tasks": expected true, false or an object { ttlMs?,')
})

t.test('limits: each a bounded integer -> FST_MCP_INVALID_OPTION naming it and its bounds', async (t) => {
  const cases: Array<[string, unknown[], string]> = [
    ['bodyLimit', [0, -1, 1.5, '1000', Infinity], 'a positive integer (bytes)'],
    ['handlerTimeoutMs', [-1, 1.5, 2 ** 31, '5'], `an integer from 0 to ${2 ** 31 - 1} (milliseconds; 0 never)`],
    ['clientRequestTimeoutMs', [0, 2 ** 31], `an integer from 1 to ${2 ** 31 - 1} (milliseconds)`],
    ['maxStreamBufferBytes', [4095, 0], 'an integer of at least 4096 (bytes)']
  ]
  for (const [key, values, expects] of cases) {
    for (const value of values) await rejects(t, { ...base, limits: { [key]: value } }, 'FST_MCP_INVALID_OPTION', `"limits.${key}": expected ${expects}`)
  }
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

t.test('an app that is not Fastify 5 -> FST_MCP_FASTIFY_VERSION, and Fastify 5 of any minor registers', async (t) => {
  for (const [version, refused] of [['4.29.1', true], ['6.0.0', true], ['50.0.0', true], ['5.99.0-rc.1', false]] as const) {
    const app = Fastify()
    t.teardown(() => app.close())
    // the version the plugin reads, as an older or newer Fastify would report it
    Object.defineProperty(app, 'version', { configurable: true, get: () => version })
    app.register(mcpCapabilities, base)
    if (refused) await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_FASTIFY_VERSION', message: new RegExp(`Fastify ${version.replaceAll('.', '\\.')}`) }, version)
    else await t.resolves(async () => { await app.ready() }, version)
  }
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
    cacheHints: { discover: { ttlMs: 0, cacheScope: 'public' }, results: { ttlMs: () => 5, cacheScope: () => 'private' } },
    security: { allowedOrigins: ['https://a.example'], allowedHosts: ['a.example'], toolErrors: 'mask' },
    tasks: { maxTasks: 3 },
    scale: {},
    requestState: { ttlMs: 1000 },
    limits: { bodyLimit: 1, handlerTimeoutMs: 0, listPageSize: 50, listen: { keepAliveMs: 0 } },
    validate: { results: true, paramHeaders: 'never' }
  })
  t.equal(app.mcp.era, 'modern')
})
