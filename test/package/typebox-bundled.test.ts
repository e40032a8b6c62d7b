/**
 * The built package carries its own TypeBox 0.34 (scripts/build.mjs) and
 * hands it out as `fastify-mcp-capabilities/typebox` (lib/typebox/index.ts).
 * Checked on dist/ through the package's name, in a fresh process whose
 * module resolutions a hook records: importing the package reads no file of
 * the installed `@sinclair/typebox`; a format registered on the `/typebox`
 * entry is the plugin's; one registered only on a separately imported
 * `@sinclair/typebox` is refused at definition with the fix named; schemas
 * built with that separate copy still validate (`Kind` is a global symbol).
 * On the sources: no file of lib/ outside lib/typebox/ imports TypeBox's
 * runtime, so the build has one copy to bundle.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { sourceFiles } from '../helpers/import-graph.js'
import { runModuleScript } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

const HOOKS = `
import { appendFileSync } from 'node:fs'
export async function resolve (specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.RESOLVED_LOG, result.url + '\\n')
  return result
}
`

const SCRIPT = `
import { register } from 'node:module'
import { readFileSync } from 'node:fs'
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}))
const resolvedTypeBox = () => readFileSync(process.env.RESOLVED_LOG, 'utf8').split('\\n').filter((url) => url.includes('/node_modules/@sinclair/typebox/'))
const Fastify = (await import('fastify')).default
const { default: mcpCapabilities, defineTools } = await import('fastify-mcp-capabilities')
const bundled = await import('fastify-mcp-capabilities/typebox')
const afterImport = resolvedTypeBox().length
const handler = (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] })

// a format registered on the plugin's own TypeBox: accepted, and checked on a call
bundled.FormatRegistry.Set('even-length', (value) => value.length % 2 === 0)
const own = defineTools({ pair: { input: bundled.Type.Object({ s: bundled.Type.String({ format: 'even-length' }) }), handler } })

// a separately imported TypeBox: its registries are not the plugin's, its schemas are
const external = await import('@sinclair/typebox')
external.FormatRegistry.Set('outside-only', () => true)
external.TypeRegistry.Set('OutsideKind', () => true)
const refusal = (define) => { try { define(); return null } catch (err) { return { code: err.code, message: err.message } } }
const refusedFormat = refusal(() => defineTools({ x: { input: external.Type.Object({ s: external.Type.String({ format: 'outside-only' }) }), handler } }))
const refusedKind = refusal(() => defineTools({ x: { input: external.Type.Object({ s: external.Type.Unsafe({ [external.Kind]: 'OutsideKind' }) }), handler } }))
const interop = defineTools({ add: { input: external.Type.Object({ a: external.Type.Integer(), b: external.Type.Optional(external.Type.String({ format: 'email' })) }), handler } })

async function calls (server, name, argsList) {
  const app = Fastify()
  await app.register(mcpCapabilities, { serverInfo: { name: 'bundled-typebox', version: '1.0.0' }, server })
  const texts = []
  for (const args of argsList) {
    const body = JSON.parse((await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
    })).body)
    texts.push(body.result?.content?.[0]?.text ?? JSON.stringify(body.error))
  }
  await app.close()
  return texts
}

console.log(JSON.stringify({
  afterImport,
  names: ['Type', 'Kind', 'FormatRegistry', 'TypeRegistry', 'TypeSystemPolicy', 'TypeGuard'].filter((name) => bundled[name] !== undefined),
  sameKind: bundled.Kind === external.Kind,
  separateRegistries: bundled.FormatRegistry !== external.FormatRegistry,
  own: await calls(own, 'pair', [{ s: 'ab' }, { s: 'abc' }]),
  refusedFormat,
  refusedKind,
  interop: await calls(interop, 'add', [{ a: 1, b: 'x@example.com' }, { a: 'one' }, { a: 1, b: 'not an email' }])
}))
`

/** An import or re-export of TypeBox's runtime (a type-only one names no code the bundle must carry). */
const TYPEBOX_RUNTIME_IMPORT = /^\s*(import|export)\s+(?!type\s)[^;]*?from\s+'@sinclair\/typebox[/']|import\('@sinclair\/typebox/m

t.test('lib/ takes TypeBox\'s runtime from lib/typebox/ only, the one place the build bundles it through', async (t) => {
  const files = sourceFiles(REPO_ROOT, 'lib')
  t.ok(files.length > 100, `read lib/ (${files.length} files)`)
  const importing = files.filter((file) => TYPEBOX_RUNTIME_IMPORT.test(readFileSync(join(REPO_ROOT, file), 'utf8')))
  t.strictSame(importing, ['lib/typebox/compiler.ts', 'lib/typebox/errors.ts', 'lib/typebox/index.ts', 'lib/typebox/value.ts'])
  t.ok(TYPEBOX_RUNTIME_IMPORT.test("import { Type } from '@sinclair/typebox'\n") && TYPEBOX_RUNTIME_IMPORT.test("x = import('@sinclair/typebox/value')") &&
    !TYPEBOX_RUNTIME_IMPORT.test("import type { TSchema } from '@sinclair/typebox'\n"), 'the pattern tells a runtime import from a type-only one')
})

const dist = join(REPO_ROOT, 'dist', 'lib', 'typebox', 'index.js')

t.test('the built package carries its own TypeBox, offered at fastify-mcp-capabilities/typebox', { skip: existsSync(dist) ? false : 'not built (npm run build)' }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'typebox-bundled-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const log = join(dir, 'resolved.log')
  const env: NodeJS.ProcessEnv = { ...process.env, RESOLVED_LOG: log }
  delete env.NODE_OPTIONS
  const result = await runModuleScript(SCRIPT, env)
  const resolved = readFileSync(log, 'utf8')
  t.match(resolved, /\/dist\/lib\/typebox\/index\.js\n/, 'the hook saw the /typebox entry resolved from dist')
  t.equal(result.afterImport, 0, 'importing the package and its /typebox entry resolved no file of node_modules/@sinclair/typebox')
  t.ok(resolved.includes('/node_modules/@sinclair/typebox/'), 'the hook sees the installed TypeBox once the script imports it')
  t.strictSame(result.names, ['Type', 'Kind', 'FormatRegistry', 'TypeRegistry', 'TypeSystemPolicy', 'TypeGuard'], '/typebox exports TypeBox\'s public API')
  t.equal(result.sameKind, true, 'Kind is the same global symbol in both copies')
  t.equal(result.separateRegistries, true, 'the installed TypeBox is a separate copy with registries of its own')
  t.equal(result.own[0], '{"s":"ab"}', 'a format registered on /typebox is accepted in a definition and passes a valid value')
  t.match(result.own[1], /Invalid arguments for tool "pair": s: .*even-length/, 'and refuses an invalid one on a call')
  t.equal(result.refusedFormat?.code, 'FST_MCP_INVALID_DEFINITION', 'a format registered only on the separate copy is refused at definition')
  t.match(result.refusedFormat?.message, /unknown string format "outside-only": register it with FormatRegistry\.Set, FormatRegistry imported from 'fastify-mcp-capabilities\/typebox'/, 'naming the registry to use')
  t.equal(result.refusedKind?.code, 'FST_MCP_INVALID_DEFINITION', 'a kind registered only on the separate copy is refused at definition')
  t.match(result.refusedKind?.message, /unknown kind "OutsideKind": register it with TypeRegistry\.Set, TypeRegistry imported from 'fastify-mcp-capabilities\/typebox'/, 'naming the registry to use')
  t.equal(result.interop[0], '{"a":1,"b":"x@example.com"}', 'a schema built with the separate copy validates a call')
  t.match(result.interop[1], /Invalid arguments for tool "add": a: expected integer/, 'and refuses a wrong type')
  t.match(result.interop[2], /Invalid arguments for tool "add": b: .*email/, 'with the plugin\'s common formats')
})
