/**
 * Module mistakes caught at registration: a non-function under a handler
 * name and a call handler without its list handler fail with coded errors;
 * a near-miss name and a module with no handler are logged as warnings.
 */
import Fastify from 'fastify'
import t from 'tap'
import { checkServerModule, probableHandler } from '../lib/server-module/module-check.js'
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

t.test('near-miss names are warned about, naming the probable handler', async (t) => {
  t.equal(probableHandler('listTool'), 'listTools')
  t.equal(probableHandler('calltool'), 'callTool')
  t.equal(probableHandler('getPrompts'), 'getPrompt')
  t.equal(probableHandler('completion'), 'complete')
  t.equal(probableHandler('readResources'), 'readResource')
  t.equal(probableHandler('onNoteAdded'), undefined)
  t.equal(probableHandler('list'), undefined)
  class Server {
    listTool () { return {} }
    completion () { return {} }
    helper () { return 1 }
  }
  const warnings = checkServerModule(new Server())
  t.strictSame(warnings, [
    'server module: "listTool" is not a handler name; did you mean "listTools"? (it is never called)',
    'server module: "completion" is not a handler name; did you mean "complete"? (it is never called)',
    'server module has no handler (listTools, callTool, listResources, readResource, listResourceTemplates, listPrompts, getPrompt, complete, subscribeResource, unsubscribeResource, setLogLevel): the endpoint advertises no tools, resources or prompts'
  ])
  t.strictSame(checkServerModule({ listTools: fn, callTool: fn, listTool: fn }), [], 'no warning when the meant handler exists')
})

t.test('the plugin logs the warnings at registration', async (t) => {
  const { logs } = await serve(t, { listTools: fn, callTool: fn, complet: fn })
  t.match(logs.filter((line) => line.level === 40), [{ msg: 'server module: "complet" is not a handler name; did you mean "complete"? (it is never called)' }])
})
