/**
 * Module mistakes caught at registration: a non-function under a handler
 * name, a call handler without its list handler, a near-miss name of a
 * missing handler and a module with no handler fail with coded errors whose
 * message carries the "did you mean" hint; harmless oddities are warnings.
 */
import Fastify from 'fastify'
import t from 'tap'
import { checkServerModule, probableHandler } from '../lib/server-module/module-check.js'
import { buildCapabilities } from '../lib/server-module/capabilities.js'
import mcpCapabilities from '../lib/index.js'
import { serve } from './definitions/helpers.js'

const fn = () => ({})

t.test('a value that is not a function under a handler name fails', async (t) => {
  t.throws(() => checkServerModule({ listTools: fn, callTool: 'nope' }), { code: 'FST_MCP_INVALID_SERVER', message: /"callTool" is not a function \(got string\)/ })
  t.throws(() => checkServerModule({ complete: null }), { code: 'FST_MCP_INVALID_SERVER', message: /"complete" is not a function \(got null\)/ })
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(mcpCapabilities, { server: { listTools: fn, callTool: {} } as never, serverInfo: { name: 'x', version: '1' } })
  await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_INVALID_SERVER', message: /"callTool" is not a function/ }, 'through register')
})

t.test('a call, get or read handler without its list handler fails with FST_MCP_MISSING_HANDLER', async (t) => {
  t.throws(() => checkServerModule({ callTool: fn }), { code: 'FST_MCP_MISSING_HANDLER', message: /"tools" needs the handler "listTools"/ })
  t.throws(() => checkServerModule({ getPrompt: fn }), { code: 'FST_MCP_MISSING_HANDLER', message: /"listPrompts"/ })
  t.throws(() => checkServerModule({ readResource: fn }), { code: 'FST_MCP_MISSING_HANDLER', message: /"listResources"/ })
  t.throws(() => checkServerModule({ listResourceTemplates: fn }), { code: 'FST_MCP_MISSING_HANDLER', message: /"listResources"/ })
  t.strictSame(checkServerModule({ callTool: fn, capabilities: { tools: false } }), [], 'a declaration decides')
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(mcpCapabilities, { server: { callTool: fn }, serverInfo: { name: 'x', version: '1' } })
  await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_MISSING_HANDLER' }, 'through register')
})

t.test('near-miss names fail registration, naming the probable handler', async (t) => {
  t.equal(probableHandler('listTool'), 'listTools')
  t.equal(probableHandler('calltool'), 'callTool')
  t.equal(probableHandler('getPrompts'), 'getPrompt')
  t.equal(probableHandler('completion'), 'complete')
  t.equal(probableHandler('readResources'), 'readResource')
  t.equal(probableHandler('onNoteAdded'), undefined)
  t.equal(probableHandler('list'), undefined)
  class Server {
    listTool () { return {} }
    callTool () { return {} }
    helper () { return 1 }
  }
  t.throws(() => checkServerModule(new Server()), {
    code: 'FST_MCP_MISSING_HANDLER',
    message: 'Capability "tools" needs the handler "listTools", which is missing from the server module ("listTool" is not a handler name; did you mean "listTools"?)'
  }, 'the missing-handler error carries the hint (class methods count)')
  t.throws(() => checkServerModule({ listTool: fn }), {
    code: 'FST_MCP_INVALID_SERVER',
    message: /"listTool" is not a handler name; did you mean "listTools"\?/
  }, 'a lone near miss: the endpoint would serve less than the module says')
  t.throws(() => checkServerModule({ listTools: fn, callTool: fn, completion: fn }), { code: 'FST_MCP_INVALID_SERVER', message: /"completion".*did you mean "complete"/ })
  t.throws(() => buildCapabilities({ listTools: fn, calltool: fn }), {
    code: 'FST_MCP_MISSING_HANDLER',
    message: /needs the handler "callTool".*\("calltool" is not a handler name; did you mean "callTool"\?\)/
  }, 'buildCapabilities names the near miss too')
  t.strictSame(checkServerModule({ listTools: fn, callTool: fn, listTool: fn }), [], 'no complaint when the meant handler exists')
  t.strictSame(checkServerModule({ listTools: fn, callTool: fn, _listRoots: fn, _listTool: fn }), [], 'names starting with _ are never checked')
})

t.test('a module with no handler fails; harmless oddities are warnings', async (t) => {
  t.throws(() => checkServerModule({}), { code: 'FST_MCP_INVALID_SERVER', message: /has no handler \(listTools, callTool, .*\): the endpoint would serve nothing/ })
  t.throws(() => checkServerModule({ helper: fn }), { code: 'FST_MCP_INVALID_SERVER', message: /no handler/ })
  t.strictSame(checkServerModule({ capabilities: { experimental: { 'x.example/y': {} } } }), [], 'a declaration says what it serves (capabilities.ts checks its handlers)')
  t.strictSame(checkServerModule({ listResources: fn, readResource: fn, unsubscribeResource: fn }), [
    'server module: "unsubscribeResource" without "subscribeResource" is never called (resources/unsubscribe needs the subscribe capability)'
  ])
})

t.test('through register, with Fastify\'s logger off (the default): the mistake is an error, not a silent empty endpoint', async (t) => {
  for (const server of [{ listTool: fn }, {}]) {
    const app = Fastify()
    t.teardown(() => app.close())
    app.register(mcpCapabilities, { server: server as never, serverInfo: { name: 'x', version: '1' } })
    await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_INVALID_SERVER' }, JSON.stringify(Object.keys(server)))
  }
})

t.test('the plugin logs the warnings at registration', async (t) => {
  const { logs } = await serve(t, { listResources: fn, readResource: fn, unsubscribeResource: fn })
  t.match(logs.filter((line) => line.level === 40), [{ msg: /"unsubscribeResource" without "subscribeResource" is never called/ }])
})
