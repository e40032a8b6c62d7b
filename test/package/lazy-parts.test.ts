/**
 * What a deployment does not use is not loaded: importing the built package
 * and serving a plain deployment (defined tools, no option turning a part
 * on) loads no chunk holding route tools (lib/routes/route-tools-on-demand.ts),
 * the tasks machinery (lib/endpoint/state.ts) or the OAuth resource server
 * (lib/plugin.ts); a deployment using one gets its chunk
 * loaded by the time `ready()` resolves, so no request waits for a load.
 * Checked on dist/ in a fresh plain `node` process whose module hooks record
 * every file loaded, between marks the script writes after each step; a
 * chunk's modules are read from its source map.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, posix, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { runLoggingModules } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

const HOOKS = `
import { appendFileSync } from 'node:fs'
export async function load (url, context, next) {
  const result = await next(url, context)
  appendFileSync(process.env.MODULE_LOG, JSON.stringify({ url }) + '\\n')
  return result
}
`

const SCRIPT = `
import { appendFileSync } from 'node:fs'
const mark = (step) => appendFileSync(process.env.MODULE_LOG, JSON.stringify({ step }) + '\\n')
const Fastify = (await import('fastify')).default
const { default: mcpCapabilities, defineTools } = await import('fastify-mcp-capabilities')
const { Type } = await import('fastify-mcp-capabilities/typebox')
mark('import')
const server = defineTools({ echo: { input: Type.Object({ text: Type.String() }), handler: (args) => args.text } })
const base = { server, serverInfo: { name: 'lazy-parts', version: '1.0.0' } }
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
const post = async (app, method, params) => JSON.parse((await app.inject({ method: 'POST', url: '/mcp', headers, payload: { jsonrpc: '2.0', id: 1, method, params } })).body)

const plain = Fastify()
await plain.register(mcpCapabilities, base)
await plain.ready()
const echoed = (await post(plain, 'tools/call', { name: 'echo', arguments: { text: 'hi' } })).result?.content?.[0]?.text
await plain.close()
mark('plain')

const withRoutes = Fastify()
await withRoutes.register(mcpCapabilities, { ...base, routes: true })
withRoutes.get('/books', { config: { mcp: { name: 'list_books' } } }, async () => [])
await withRoutes.ready()
mark('routes')
const routeTools = (await post(withRoutes, 'tools/list', {})).result?.tools?.map((tool) => tool.name)
await withRoutes.close()

const parts = {
  tasks: { tasks: true },
  authorization: { authorization: { resource: 'https://mcp.example.com', authorizationServers: ['https://auth.example.com'], verifyAccessToken: async () => ({ scopes: [] }) } }
}
for (const [part, options] of Object.entries(parts)) {
  const app = Fastify()
  await app.register(mcpCapabilities, { ...base, ...options })
  await app.ready()
  mark(part)
  await app.close()
}
console.log(JSON.stringify({ echoed, routeTools }))
`

/** A lazy part: the chunk holding `module` is loaded first in the step of the deployment using it. */
const PARTS: ReadonlyArray<{ step: string, module: string }> = [
  { step: 'routes', module: 'lib/routes/route-tools.ts' },
  { step: 'tasks', module: 'lib/tasks/service.ts' },
  { step: 'authorization', module: 'lib/auth/resource-server.ts' }
]

/** The lib/ modules a built file holds, from its source map (empty for a file without one). */
function modulesOf (file: string): string[] {
  const map = `${file}.map`
  if (!existsSync(map)) return []
  const sources = (JSON.parse(readFileSync(map, 'utf8')) as { sources: string[] }).sources
  return sources.map((source) => relative(REPO_ROOT, join(dirname(file), source)).split('\\').join(posix.sep)).filter((source) => source.startsWith('lib/'))
}

const built = existsSync(join(REPO_ROOT, 'dist', 'lib', 'index.js'))

t.test('a deployment loads the optional parts it uses, and only those', { skip: built ? false : 'not built (npm run build)' }, async (t) => {
  const { output, records } = await runLoggingModules<{ url?: string, step?: string }>(HOOKS, SCRIPT)
  const result = JSON.parse(output) as { echoed: string, routeTools: string[] }
  t.equal(result.echoed, 'hi', 'the plain deployment answered a tools/call')
  t.ok(result.routeTools.includes('list_books'), `a route with config.mcp is a tool (${result.routeTools.join(', ')})`)

  // The lib/ modules first loaded in each step (the step's mark closes it).
  const dist = join(REPO_ROOT, 'dist') + '/'
  const loadedIn = new Map<string, string[]>()
  let loaded: string[] = []
  for (const record of records) {
    if (record.step !== undefined) {
      loadedIn.set(record.step, loaded)
      loaded = []
    } else if (record.url?.startsWith('file:') === true) {
      const file = fileURLToPath(record.url)
      if (file.startsWith(dist)) loaded.push(...modulesOf(file))
    }
  }
  const atImport = loadedIn.get('import') ?? []
  t.ok(atImport.includes('lib/plugin.ts') && atImport.includes('lib/definitions/tools.ts'), `the hooks saw the main chunk's modules at import (${atImport.length})`)
  const plain = [...atImport, ...loadedIn.get('plain') ?? []]
  for (const { step, module } of PARTS) {
    t.notOk(plain.includes(module), `importing the package and serving a plain deployment loads no ${module}`)
    t.ok(loadedIn.get(step)?.includes(module), `a deployment with ${step} has ${module} loaded when ready() resolves`)
  }
  t.notOk(plain.includes('lib/endpoint/authorization.ts'), 'nor the endpoint\'s authorization wiring')
  t.ok(loadedIn.get('authorization')?.includes('lib/endpoint/authorization.ts'), 'which a deployment with authorization loads')
})
