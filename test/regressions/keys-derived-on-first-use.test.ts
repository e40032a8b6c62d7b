// Guards issue 35 (cold start): every registration derived its keys with
// HKDF-SHA256 (the list-cursor seal's and the requestState codec's),
// although a start, and a server that never pages or asks for input, needs
// neither. The keys are now derived when the first cursor or state is sealed
// or opened (lib/common/derived-keys.ts, used by lib/definitions/cursor-seal.ts
// and lib/input/request-state.ts).
// Run in a child process, whose `crypto.hkdfSync` counts its calls.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { runModuleScript } from '../helpers/module-script.js'
import { REPO_ROOT } from '../helpers/paths.js'

function script (entry: string): string {
  return `
import crypto from 'node:crypto'
import { syncBuiltinESMExports } from 'node:module'
let derived = 0
const hkdfSync = crypto.hkdfSync
crypto.hkdfSync = (...args) => { derived++; return hkdfSync(...args) }
syncBuiltinESMExports()
const Fastify = (await import('fastify')).default
const { default: mcpCapabilities, defineTools } = await import(${JSON.stringify(entry)})
const tools = {}
for (let i = 0; i < 3; i++) tools['t' + i] = { description: 'tool ' + i, handler: () => ({ content: [{ type: 'text', text: 'answer ' + i }] }) }
const app = Fastify()
await app.register(mcpCapabilities, {
  serverInfo: { name: 'lazy-keys', version: '1.0.0' },
  server: defineTools(tools),
  requestState: { secret: 'a deployment secret of at least thirty-two bytes' },
  limits: { listPageSize: 2 }
})
await app.ready()
const post = async (headers, body) => JSON.parse((await app.inject({
  method: 'POST',
  url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
  payload: JSON.stringify({ jsonrpc: '2.0', id: 1, ...body })
})).body)
const legacy = { 'mcp-protocol-version': '2025-11-25' }
const call = await post(legacy, { method: 'tools/call', params: { name: 't1', arguments: {} } })
const atCall = derived
const first = await post(legacy, { method: 'tools/list', params: {} })
const second = await post(legacy, { method: 'tools/list', params: { cursor: first.result.nextCursor } })
const forged = await post(legacy, { method: 'tools/list', params: { cursor: first.result.nextCursor.replace(/^[^.]+/, '9') } })
await app.close()
console.log(JSON.stringify({
  atCall,
  afterPaging: derived,
  callText: call.result.content[0].text,
  pages: [first.result.tools.map((tool) => tool.name), second.result.tools.map((tool) => tool.name)],
  forgedCode: forged.error?.code
}))
`
}

async function run (t: Test, entry: string): Promise<void> {
  const env: NodeJS.ProcessEnv = { ...process.env }
  delete env.NODE_OPTIONS
  const result = await runModuleScript(script(entry), env)
  t.equal(result.atCall, 0, 'importing, registering and a tools/call derived no key')
  t.equal(result.callText, 'answer 1', 'the call was answered')
  t.equal(result.afterPaging, 1, 'the first cursor derived the seal\'s key, once')
  t.strictSame(result.pages, [['t0', 't1'], ['t2']], 'the cursor issued pages through')
  t.equal(result.forgedCode, -32602, 'a forged cursor is still refused')
}

t.test('the sources: list-cursor and requestState keys are derived on first use', async (t) => {
  await run(t, pathToFileURL(join(REPO_ROOT, 'lib', 'index.ts')).href)
})

const dist = join(REPO_ROOT, 'dist', 'lib', 'index.js')
t.test('the built package: the same', { skip: existsSync(dist) ? false : 'not built (npm run build)' }, async (t) => {
  await run(t, pathToFileURL(dist).href)
})
