// Guards issue 35 (cold start): importing the package loaded TypeBox's Value
// module (`@sinclair/typebox/value`, some thirty modules) on every start,
// although only nested defaults (`Value.Default`) and a refused listed
// definition's message (`Value.Errors`) used it. It is now imported when a
// definition declares nested defaults, and the plugin's registration waits
// for it (lib/definitions/nested-defaults.ts), so calls stay synchronous. Run in a child process, whose
// module resolutions a hook records: this one has loaded the module already.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { runModuleScript } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

/** The Value module's own index, in TypeBox's ESM or CommonJS build (the compiler imports a few of its parts, not it). */
const VALUE_MODULE = /@sinclair\/typebox\/build\/(esm|cjs)\/value\/index\.m?js$/
/** The built package carries its TypeBox (scripts/build.mjs): the Value module is its lazy chunk (lib/typebox/value.ts). */
const BUNDLED_VALUE_MODULE = /\/dist\/lib\/chunks\/value-[A-Z0-9]+\.js$/

const HOOKS = `
import { appendFileSync } from 'node:fs'
export async function resolve (specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(process.env.RESOLVED_LOG, result.url + '\\n')
  return result
}
`

function script (entry: string, valueModule: RegExp): string {
  return `
import { register } from 'node:module'
import { readFileSync } from 'node:fs'
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOKS)}))
const loaded = () => readFileSync(process.env.RESOLVED_LOG, 'utf8').split('\\n').some((url) => ${valueModule.toString()}.test(url))
const { Type } = await import('@sinclair/typebox')
const Fastify = (await import('fastify')).default
const { default: mcpCapabilities, defineTools } = await import(${JSON.stringify(entry)})
const handler = (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] })
async function serve (server) {
  const app = Fastify()
  await app.register(mcpCapabilities, { serverInfo: { name: 'lazy-value', version: '1.0.0' }, server })
  await app.ready()
  const call = async (args) => JSON.parse((await app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: args } })
  })).body).result.content[0].text
  return { app, call }
}
const flat = await serve(defineTools({ search: { input: Type.Object({ q: Type.String(), n: Type.Optional(Type.Integer({ default: 1 })) }), handler } }))
const texts = [await flat.call({ q: 'a' }), await flat.call({ q: 5 })]
const refused = (() => { try { defineTools({ x: { annotations: { readOnlyHint: 'yes' }, handler } }) } catch (err) { return err.message } })()
const atStart = loaded()
const nestedTools = defineTools({ search: { input: Type.Object({ o: Type.Optional(Type.Object({ d: Type.Integer({ default: 3 }) }, { default: {} })) }), handler } })
const nested = await serve(nestedTools)
const direct = nestedTools.callTool({ name: 'search', arguments: {} }, {})
const synchronousAtReady = typeof direct?.then !== 'function'
texts.push(await nested.call({}))
await flat.app.close()
await nested.app.close()
console.log(JSON.stringify({ atStart, withNested: loaded(), synchronousAtReady, texts, refused }))
`
}

async function run (t: Test, entry: string, valueModule: RegExp): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'typebox-value-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const log = join(dir, 'resolved.log')
  const env: NodeJS.ProcessEnv = { ...process.env, RESOLVED_LOG: log }
  delete env.NODE_OPTIONS
  const result = await runModuleScript(script(entry, valueModule), env)
  t.ok(readFileSync(log, 'utf8').includes('/@sinclair/typebox/'), 'the hook saw TypeBox resolved')
  t.equal(result.atStart, false, 'importing, registering, a call with root defaults, a refused call and a refused definition did not load it')
  t.equal(result.withNested, true, 'a definition with nested defaults did')
  t.equal(result.synchronousAtReady, true, 'registration waited for it: a call after ready fills nested defaults synchronously')
  t.strictSame(result.texts.slice(0, 1), ['{"q":"a","n":1}'], 'root defaults filled in')
  t.match(result.texts[1], /Invalid arguments for tool "search": q: expected string/, 'a refused call is described')
  t.equal(result.texts[2], '{"o":{"d":3}}', 'nested defaults filled in')
  t.match(result.refused, /not a valid Tool: \/annotations\/readOnlyHint expected boolean/i, 'a refused listed definition names its first problem')
}

t.test('the sources: TypeBox\'s Value module is loaded for nested defaults only', async (t) => {
  await run(t, pathToFileURL(join(REPO_ROOT, 'lib', 'index.ts')).href, VALUE_MODULE)
})

const dist = join(REPO_ROOT, 'dist', 'lib', 'index.js')
t.test('the built package: the same', { skip: existsSync(dist) ? false : 'not built (npm run build)' }, async (t) => {
  await run(t, pathToFileURL(dist).href, BUNDLED_VALUE_MODULE)
})
