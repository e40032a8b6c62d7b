/**
 * The MCP Inspector's CLI (pinned in test/helpers/peer-install.ts, run on
 * Node 22) in stdio mode against the conformance example served with
 * `serveStdio`, as a user would run it, in each era (`--protocol-era`):
 * listing and calling tools, reading a resource, getting a prompt. Each
 * command launches the server, does one thing and ends its stdin. Then the
 * command docs/stdio.md gives runs as written (npx, Node 22 beside this
 * Node), against the example server.
 */
import { execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { fencedBlocks } from '../docs/markdown.js'
import { REPO_ROOT } from '../helpers/paths.js'
import { ensureInspector, INSPECTOR_VERSION, registryUnreachable } from '../helpers/peer-install.js'
import { ARGS, COMMAND, childEnv } from './helpers.js'

interface Peers { node: string, inspector: string }

/** The installed Inspector, or why it could not be installed (only an unreachable registry is a reason to skip). */
async function install (): Promise<Peers | string> {
  try {
    return await ensureInspector()
  } catch (err) {
    if (!registryUnreachable(err)) throw err
    return `the npm registry is unreachable, so the MCP Inspector cannot be installed: ${String((err as Error).message).split('\n')[0]}`
  }
}

interface Outcome { code: number | null, stdout: string, stderr: string }

/** One Inspector CLI command against the stdio server; `--format json` prints one JSON object. */
function inspect (peers: Peers, era: 'legacy' | 'modern', args: string[]): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(peers.node, [peers.inspector, '--cli', '--protocol-era', era, '--format', 'json', '-q', ...args, '--', COMMAND, ...ARGS], {
      env: childEnv({ LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(killer)
      resolve({ code, stdout, stderr })
    })
  })
}

async function json (t: Test, peers: Peers, era: 'legacy' | 'modern', args: string[]): Promise<Record<string, any>> {
  const outcome = await inspect(peers, era, args)
  t.equal(outcome.code, 0, `inspector ${args.join(' ')} exits 0${outcome.code === 0 ? '' : `: ${outcome.stderr.slice(-2000)}`}`)
  return JSON.parse(outcome.stdout) as Record<string, any>
}

const installed = await install()

for (const era of ['legacy', 'modern'] as const) {
  await t.test(`MCP Inspector CLI over stdio, --protocol-era ${era}`, { skip: typeof installed === 'string' ? installed : false }, async (t) => {
    const peers = installed as Peers
    const tools = await json(t, peers, era, ['--method', 'tools/list'])
    const names = (tools.result?.tools ?? []).map((tool: { name: string }) => tool.name)
    t.ok(names.includes('test_simple_text') && names.includes('test_tool_with_progress'), 'tools/list names the tools')

    t.match(await json(t, peers, era, ['--method', 'tools/call', '--tool-name', 'test_simple_text']),
      { result: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] } }, 'tools/call')

    t.match(await json(t, peers, era, ['--method', 'resources/read', '--uri', 'test://static-text']),
      { result: { contents: [{ uri: 'test://static-text', text: 'This is the content of the static text resource.' }] } }, 'resources/read')

    t.match(await json(t, peers, era, ['--method', 'prompts/get', '--prompt-name', 'test_simple_prompt']),
      { result: { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] } }, 'prompts/get')
  })
}

const DOCS = 'docs/stdio.md'
const PINNED = `npx -y -p node@22 -p @modelcontextprotocol/inspector@${INSPECTOR_VERSION} mcp-inspector`

await t.test(`the Inspector commands of ${DOCS} are pinned and run as written`, { skip: typeof installed === 'string' ? installed : false }, async (t) => {
  const blocks = fencedBlocks(DOCS, readFileSync(join(REPO_ROOT, DOCS), 'utf8')).filter((block) => block.code.includes('@modelcontextprotocol/inspector'))
  t.ok(blocks.length > 0, 'the page shows an Inspector command')
  for (const block of blocks) t.ok(block.code.startsWith(PINNED), `${DOCS}:${block.line} starts with ${PINNED}`)
  const run = promisify(execFile)
  for (const block of blocks) {
    // The one change besides the path: a longer connect timeout than the CLI's 15 s, for a loaded test machine.
    const script = block.code.replaceAll('/path/to/fastify-mcp-capabilities', REPO_ROOT).replace(' --cli ', ' --cli --connect-timeout 120000 ')
    const listed = await run('bash', ['-euo', 'pipefail', '-c', script], { timeout: 300_000, maxBuffer: 16 * 1024 * 1024 })
    const names = (JSON.parse(listed.stdout) as { result: { tools: Array<{ name: string }> } }).result.tools.map((tool) => tool.name)
    t.ok(names.includes('add_note'), `${DOCS}:${block.line} lists the example's tools`)
    // The variant the page names after it.
    const called = await run('bash', ['-euo', 'pipefail', '-c', script.replace('--method tools/list', '--method tools/call --tool-name add_note --tool-arg title=Hi body=There')], { timeout: 300_000 })
    // add_note answers a link to the note it stored, named by the title argument.
    t.match(JSON.parse(called.stdout), { result: { content: [{ type: 'resource_link', name: 'Hi' }] } }, 'and calls one with --tool-arg')
  }
})
