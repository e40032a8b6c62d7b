/**
 * Importing the built package (its main entry, `./typebox` and `./client`:
 * what every deployment loads) makes Node's ES module loader load no
 * CommonJS module: each such import would have Node scan the module with its
 * CommonJS lexer, which on a cold start cost ~50 ms of compilation
 * (lib/common/commonjs-dependencies.ts). Checked in a fresh plain `node`
 * process whose module hooks record every resolution and the format each
 * loaded module had; the script imports Fastify first, as an application
 * does, which shows the check sees a CommonJS import when there is one.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { runLoggingModules } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

const HOOKS = `
import { appendFileSync } from 'node:fs'
export async function resolve (specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.MODULE_LOG, JSON.stringify({ parent: context.parentURL ?? null, url: result.url }) + '\\n')
  return result
}
export async function load (url, context, next) {
  const result = await next(url, context)
  appendFileSync(process.env.MODULE_LOG, JSON.stringify({ url, format: result.format }) + '\\n')
  return result
}
`

const SCRIPT = `
await import('fastify')
const { default: mcpCapabilities } = await import('fastify-mcp-capabilities')
await import('fastify-mcp-capabilities/typebox')
await import('fastify-mcp-capabilities/client')
console.log(typeof mcpCapabilities)
`

const built = existsSync(join(REPO_ROOT, 'dist', 'lib', 'index.js'))

t.test('the built package loads no CommonJS module through Node\'s ES module loader', { skip: built ? false : 'not built (npm run build)' }, async (t) => {
  const { output, records } = await runLoggingModules<{ parent?: string | null, url: string, format?: string }>(HOOKS, SCRIPT)
  t.equal(output, 'function', 'the package imported')

  const formats = new Map(records.filter((record) => record.format !== undefined).map((record) => [record.url, record.format]))
  const dist = pathToFileURL(join(REPO_ROOT, 'dist')).href + '/'
  const fromPackage = records.filter((record) => typeof record.parent === 'string' && record.parent.startsWith(dist))
  t.ok(fromPackage.length >= 4, `the hooks saw the package's own imports (${fromPackage.length})`)
  t.ok(fromPackage.some((record) => record.url.startsWith(dist + 'lib/chunks/')), 'its chunks among them')

  const commonjs = fromPackage.filter((record) => formats.get(record.url) === 'commonjs').map((record) => `${record.parent?.slice(dist.length)} -> ${record.url}`)
  t.strictSame(commonjs, [], 'no module the package imports is CommonJS')

  const fastify = records.find((record) => record.format !== undefined && /\/node_modules\/fastify\/fastify\.js$/.test(record.url))
  t.equal(fastify?.format, 'commonjs', 'the hooks report a CommonJS import as such (the script\'s own import of Fastify)')
})
