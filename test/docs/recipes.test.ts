/**
 * The shell recipes of the documentation run: every ```sh block that calls
 * `curl` is run with bash against the example server (`npm start`, in its
 * own process, both eras; a recipe using `$TOKEN` against the example with
 * MCP_AUTH_ISSUER and a token from the local test authorization server), and
 * its output is checked against the answer shown right after it (a ```json
 * block: the real answer must contain it; a ```text block: equal), or else
 * must be a JSON-RPC result. Any other shell block must say above it why no
 * test runs it (`<!-- docs-test: not run (why) -->`) or name the test file
 * that runs it (`<!-- docs-test: run by test/....test.ts -->`, which must
 * exist). Every ```json block parses.
 */
import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { startAuthServer } from '../helpers/auth-server.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { freePort, startExample } from '../helpers/server-process.js'
import { allBlocks, type Block, followingBlock, isShell } from './markdown.js'

const run = promisify(execFile)
const DOCUMENTED_ORIGIN = 'http://127.0.0.1:3000'
const NOT_RUN = /^<!-- docs-test: not run \(.+\) -->$/
/** Above a block another test runs: that test's file. */
const RUN_BY = /^<!-- docs-test: run by (test\/\S+\.test\.ts) -->$/
/** Above a recipe meant for a server with authorization on (one using `$TOKEN` needs no note). */
const AUTHORIZATION_ON = '<!-- docs-test: authorization on -->'

const blocks = allBlocks()
const texts = new Map<string, string>()
const textOf = (file: string): string => {
  let text = texts.get(file)
  if (text === undefined) texts.set(file, text = readFileSync(join(REPO_ROOT, file), 'utf8'))
  return text
}
const where = (block: Block): string => `${block.file}:${block.line}`

const shell = blocks.filter(isShell)
const runElsewhere = (block: Block): boolean => {
  const file = RUN_BY.exec(block.note ?? '')?.[1]
  return file !== undefined && existsSync(join(REPO_ROOT, file))
}
const recipes = shell.filter((block) => /^curl\s/m.test(block.code) && !NOT_RUN.test(block.note ?? '') && !runElsewhere(block))
const needsAuthorization = (block: Block): boolean => block.code.includes('$TOKEN') || block.note === AUTHORIZATION_ON
t.ok(recipes.some((block) => block.file.startsWith('docs/')), `${recipes.length} curl recipes, some in docs/`)

t.test('every other shell block says why it is not run', async (t) => {
  const unexplained = shell.filter((block) => !recipes.includes(block) && !NOT_RUN.test(block.note ?? '') && !runElsewhere(block))
  const unknownNotes = recipes.filter((block) => block.note !== undefined && block.note !== AUTHORIZATION_ON)
  t.strictSame(unexplained.map(where), [], 'a block that is not a curl recipe carries <!-- docs-test: not run (why) --> or <!-- docs-test: run by <an existing test file> -->')
  t.strictSame(unknownNotes.map(where), [], 'a note above a recipe is one this test knows')
})

t.test('every JSON block parses', async (t) => {
  const broken = blocks.filter((block) => block.language === 'json').flatMap((block) => {
    try {
      JSON.parse(block.code)
      return []
    } catch (error) {
      return [`${where(block)}: ${(error as Error).message}`]
    }
  })
  t.strictSame(broken, [])
})

async function startNotes (env: Record<string, string>): Promise<{ origin: string, stop: () => Promise<void> }> {
  const started = await startExample(REPO_ROOT, 'server.ts', env, (output) => /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1])
  return { origin: started.ready, stop: started.stop }
}

async function runRecipe (t: Test, block: Block, origin: string, env: Record<string, string>): Promise<void> {
  const script = block.code.replaceAll(DOCUMENTED_ORIGIN, origin)
  const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { env: { ...process.env, ...env }, timeout: 20_000 })
  const answer = followingBlock(blocks, block, textOf(block.file))
  if (answer?.language === 'text') {
    t.equal(stdout.trim(), answer.code.trim(), `${where(block)}: the output is the one shown at ${where(answer)}`)
    return
  }
  let actual: unknown
  t.doesNotThrow(() => { actual = JSON.parse(stdout) }, `${where(block)}: the answer is JSON`)
  if (answer?.language === 'json') {
    t.match(actual, JSON.parse(answer.code), `${where(block)}: the answer contains the one shown at ${where(answer)}`)
  } else {
    t.match(actual, { jsonrpc: '2.0', result: {} }, `${where(block)}: the answer is a JSON-RPC result`)
  }
}

t.test('the curl recipes against the example server', async (t) => {
  const open = recipes.filter((block) => !needsAuthorization(block))
  const notes = await startNotes({})
  t.teardown(notes.stop)
  for (const block of open) await runRecipe(t, block, notes.origin, {})
})

t.test('the curl recipes with a bearer token against the example with authorization on', async (t) => {
  const authorized = recipes.filter(needsAuthorization)
  t.ok(authorized.length > 0, 'docs show recipes with authorization on')
  const as = await startAuthServer({ clients: { app: { secret: 'app-secret', scopes: ['notes:write'] } } })
  t.teardown(() => as.close())
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const notes = await startNotes({ PORT: String(port), MCP_AUTH_ISSUER: as.issuer })
  t.teardown(notes.stop)
  t.equal(notes.origin, origin)
  const TOKEN = await as.mint(`${origin}/mcp`, { sub: 'docs-reader', scope: '' })
  for (const block of authorized) await runRecipe(t, block, origin, { TOKEN })
})
