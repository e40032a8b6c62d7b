// The stdio transport is loaded when `serveStdio` is first called, not when
// the package is imported: an HTTP deployment never evaluates lib/stdio/*
// (lib/stdio/serve-stdio-on-demand.ts). Run in a child process whose module
// resolution is watched by a hook: the module cache of this one already
// holds the transport.
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { runModuleScript } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

const LIB = pathToFileURL(join(REPO_ROOT, 'lib', 'index.ts')).href

// Reports every module URL resolved after it is registered.
const HOOKS = `
let port
export function initialize (data) { port = data.port }
export async function resolve (specifier, context, next) {
  const resolved = await next(specifier, context)
  port.postMessage(resolved.url)
  return resolved
}
`

const SCRIPT = `
import { register } from 'node:module'
import { MessageChannel } from 'node:worker_threads'
import { PassThrough } from 'node:stream'
const { port1, port2 } = new MessageChannel()
const resolved = []
port1.on('message', (url) => resolved.push(url))
port1.unref()
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] })
const settle = () => new Promise((resolve) => setTimeout(resolve, 200))
const stdioModules = () => resolved.filter((url) => url.includes('/lib/stdio/') && !url.endsWith('/serve-stdio-on-demand.ts')).map((url) => url.slice(url.indexOf('/lib/stdio/') + 1)).sort()
const Fastify = (await import('fastify')).default
const { default: mcpCapabilities, defineTools, serveStdio } = await import(${JSON.stringify(LIB)})
const app = Fastify()
await app.register(mcpCapabilities, {
  serverInfo: { name: 'lazy-stdio', version: '1.0.0' },
  server: defineTools({ ping: { handler: () => ({ content: [{ type: 'text', text: 'pong' }] }) } })
})
await app.ready()
await settle()
const atReady = stdioModules()
const output = new PassThrough()
const server = await serveStdio(app, { input: new PassThrough(), output, handleSignals: false })
await server.close()
await settle()
console.log(JSON.stringify({ atReady, afterServe: stdioModules() }))
`

t.test('importing the package and registering the plugin loads no stdio module; serveStdio loads them', async (t) => {
  const result = await runModuleScript(SCRIPT)
  t.strictSame(result.atReady, [], 'nothing under lib/stdio/ but the on-demand entry was resolved')
  t.ok(result.afterServe.includes('lib/stdio/connection.ts') && result.afterServe.includes('lib/stdio/serve-stdio.ts'),
    `serveStdio loaded the transport (${result.afterServe.join(', ')})`)
})
