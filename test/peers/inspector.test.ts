/**
 * The MCP Inspector recipes of docs/connect-a-client.md run as written (issue
 * 34, item 6): the pinned Inspector CLI, fetched by npx with Node.js 22 beside
 * the system's Node.js 20, against the example server over HTTP: tools/list,
 * tools/call, the bearer-token form against the example with authorization
 * on, and the configuration-file form asking in the modern era. Needs the npm
 * registry (npx downloads Node.js 22 and the Inspector once, then uses its cache).
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { startAuthServer } from '../helpers/auth-server.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { freePort, startExample } from '../helpers/server-process.js'
import { allBlocks, isShell } from '../docs/markdown.js'

const run = promisify(execFile)
const PAGE = 'docs/connect-a-client.md'
const DOCUMENTED_ORIGIN = 'http://127.0.0.1:3000'
const blocks = allBlocks().filter((block) => block.file === PAGE)
const recipes = blocks.filter((block) => isShell(block) && block.code.includes('mcp-inspector'))
const plain = recipes.find((block) => block.code.includes('--method tools/call'))
const bearer = recipes.find((block) => block.code.includes('$TOKEN'))
const configured = recipes.find((block) => block.code.includes('--config inspector.json'))
const configFile = blocks.find((block) => block.language === 'json' && block.code.includes('"protocolEra"'))

t.ok(plain !== undefined && bearer !== undefined && configured !== undefined && configFile !== undefined, 'the page shows the list/call, bearer and configuration-file recipes')
for (const block of recipes) t.match(block.code, /-p node@22 -p @modelcontextprotocol\/inspector@\d+\.\d+\.\d+ mcp-inspector/, `${PAGE}:${block.line} pins the Inspector and runs it on Node.js 22`)

const work = mkdtempSync(join(tmpdir(), 'inspector-recipes-'))
t.teardown(() => rmSync(work, { recursive: true, force: true }))

async function runRecipe (code: string, origin: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', code.replaceAll(DOCUMENTED_ORIGIN, origin)], {
    cwd: work,
    timeout: 300_000,
    maxBuffer: 16 * 1024 * 1024,
    // the Inspector keeps secrets in memory instead of asking for an OS keychain the test machine lacks
    env: { ...process.env, ...env, MCP_INSPECTOR_SECRET_STORE: 'memory' }
  })
  return stdout
}

/** The JSON documents the CLI printed, one per command. */
function documents (stdout: string): unknown[] {
  return stdout.split(/\n(?=\{)/).map((part) => JSON.parse(part))
}

async function startNotes (env: Record<string, string>): Promise<{ origin: string, stop: () => Promise<void> }> {
  const started = await startExample(REPO_ROOT, 'server.ts', env, (output) => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1])
  return { origin: started.ready, stop: started.stop }
}

t.test('tools/list and tools/call, then the configuration file in the modern era', async (t) => {
  const notes = await startNotes({})
  t.teardown(notes.stop)
  const [listed, called] = documents(await runRecipe(plain?.code ?? '', notes.origin)) as [{ tools: Array<{ name: string }> }, { structuredContent: unknown }]
  t.ok(listed.tools.some((tool) => tool.name === 'word_count'), 'tools/list names the example tools')
  t.strictSame(called.structuredContent, { words: 3 }, 'tools/call answers')

  writeFileSync(join(work, 'inspector.json'), (configFile?.code ?? '').replaceAll(DOCUMENTED_ORIGIN, notes.origin))
  const [modern] = documents(await runRecipe(configured?.code ?? '', notes.origin)) as [{ tools: Array<{ name: string }> }]
  t.ok(modern.tools.some((tool) => tool.name === 'word_count'), 'tools/list through the configuration file')
})

t.test('--header carries the bearer token to the example with authorization on', async (t) => {
  const as = await startAuthServer({ clients: { app: { secret: 'app-secret', scopes: ['notes:write'] } } })
  t.teardown(() => as.close())
  const port = await freePort()
  const notes = await startNotes({ PORT: String(port), MCP_AUTH_ISSUER: as.issuer })
  t.teardown(notes.stop)
  const TOKEN = await as.mint(`${notes.origin}/mcp`, { sub: 'inspector', scope: '' })
  const [listed] = documents(await runRecipe(bearer?.code ?? '', notes.origin, { TOKEN })) as [{ tools: Array<{ name: string }> }]
  t.ok(listed.tools.length > 0, 'tools/list with the token')
  await t.rejects(runRecipe(bearer?.code ?? '', notes.origin, { TOKEN: 'not-a-token' }), 'and the same recipe with a bad token fails: the header is what got it in')
})
