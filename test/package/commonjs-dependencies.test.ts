/**
 * Importing the built package (its main entry, `./typebox` and `./client`:
 * what every deployment loads) makes Node's ES module loader load no
 * CommonJS module: each such import would have Node scan the module with its
 * CommonJS lexer, which on a cold start cost ~50 ms of compilation
 * (lib/common/commonjs-dependencies.ts). Checked in a fresh plain `node`
 * process whose module hooks record every resolution and the format each
 * loaded module had; the script imports Fastify first, as an application
 * does, which shows the check sees a CommonJS import when there is one.
 *
 * Nor does it import any of Node's built-in modules: the first `import` of
 * a built-in builds its ES module facade, which loads the module's lazy
 * parts (WebCrypto for `node:crypto`, ...), ~3 ms of a cold start; the
 * bundle takes them from `process.getBuiltinModule` (scripts/build.mjs).
 */
import { createRequire } from 'node:module'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { builtinModule } from '../../lib/common/builtin-module.js'
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
await import('node:os')
console.log(typeof mcpCapabilities)
`

const built = existsSync(join(REPO_ROOT, 'dist', 'lib', 'index.js'))

type ModuleRecord = { parent?: string | null, url: string, format?: string }
let loaded: ReturnType<typeof runLoggingModules<ModuleRecord>> | undefined
/** One fresh process importing the package, its records read by both checks below. */
const importedOnce = (): ReturnType<typeof runLoggingModules<ModuleRecord>> => (loaded ??= runLoggingModules<ModuleRecord>(HOOKS, SCRIPT))

t.test('the built package loads no CommonJS module through Node\'s ES module loader', { skip: built ? false : 'not built (npm run build)' }, async (t) => {
  const { output, records } = await importedOnce()
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

t.test('the built package imports none of Node\'s built-in modules', { skip: built ? false : 'not built (npm run build)' }, async (t) => {
  const { output, records } = await importedOnce()
  t.equal(output, 'function', 'the package imported')
  const dist = pathToFileURL(join(REPO_ROOT, 'dist')).href + '/'
  const builtins = records.filter((record) => typeof record.parent === 'string' && record.parent.startsWith(dist) && record.url.startsWith('node:'))
  t.strictSame(builtins.map((record) => `${record.parent?.slice(dist.length)} -> ${record.url}`), [], 'no built-in imported by the package')
  const own = records.find((record) => record.url === 'node:os' && typeof record.parent === 'string' && !record.parent.startsWith(dist))
  t.ok(own, 'the hooks see a built-in import (the script\'s own import of node:os)')

  // every file of the build, the lazy chunks and the other entries too: no static or dynamic import of a built-in
  const files = readdirSync(join(REPO_ROOT, 'dist', 'lib'), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'))
  t.ok(files.length >= 10, `the build's files (${files.length})`)
  const importing = files.filter((file) => /\bfrom\s*["']node:|\bimport\s*\(\s*["']node:|^\s*import\s*["']node:/m.test(readFileSync(join(REPO_ROOT, 'dist', 'lib', file), 'utf8')))
  t.strictSame(importing, [], 'no file of the build imports a built-in')
})

t.test('builtinModule hands over what require gives, and names the Node it needs where it cannot', async (t) => {
  const require = createRequire(import.meta.url)
  t.equal(builtinModule('node:crypto'), require('node:crypto'), 'the same module object as require')
  const given = process.getBuiltinModule
  t.teardown(() => { process.getBuiltinModule = given })
  // as on Node 20 before 20.16
  process.getBuiltinModule = undefined as unknown as typeof process.getBuiltinModule
  t.throws(() => builtinModule('node:crypto'), { message: new RegExp(`needs Node\\.js 20\\.16 or later .*this is ${process.version.replaceAll('.', '\\.')}`) })
})
