/**
 * Runs a TypeScript block of the documentation as a user would run it: its
 * own module (written beside the tests so `fastify`, tap and the other
 * packages resolve from node_modules, then removed), the package's import
 * names pointed at the sources in lib/, run by tsx in a child process.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { REPO_ROOT } from './paths.js'
import { type Block, allBlocks, isTypeScript } from '../docs/markdown.js'

const run = promisify(execFile)
const ENTRIES: Record<string, string> = {
  'fastify-mcp-capabilities': 'lib/index.ts',
  'fastify-mcp-capabilities/client': 'lib/client/index.ts',
  'fastify-mcp-capabilities/redis': 'lib/redis/index.ts',
  'fastify-mcp-capabilities/testing': 'lib/testing/index.ts'
}
let written = 0

/** The TypeScript blocks of `file` (e.g. `docs/testing.md`) whose code contains `marker`. */
export function typeScriptBlocks (file: string, marker: string): Block[] {
  return allBlocks().filter((block) => block.file === file && isTypeScript(block) && block.code.includes(marker))
}

/** The block's code with the package's import names pointing at lib/. */
export function withLocalImports (code: string): string {
  return code.replace(/from '(fastify-mcp-capabilities(?:\/[a-z]+)?)'/g, (whole, name: string) => {
    const source = ENTRIES[name]
    return source === undefined ? whole : `from '${join(REPO_ROOT, source)}'`
  })
}

export interface SnippetRun { stdout: string, stderr: string }

/** Runs `code` (already rewritten) as a module with `args` after the file (e.g. a test runner's flags). */
export async function runSnippet (code: string, options: { timeoutMs?: number, runner?: string[] } = {}): Promise<SnippetRun> {
  const file = join(REPO_ROOT, 'test', 'docs', `snippet-${process.pid}-${++written}.tmp.ts`)
  writeFileSync(file, code)
  try {
    const runner = options.runner ?? [join(REPO_ROOT, 'node_modules', '.bin', 'tsx')]
    const [command, ...args] = runner
    return await run(command as string, [...args, file], { cwd: REPO_ROOT, timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } })
  } finally {
    rmSync(file, { force: true })
  }
}

/** A snippet running in the background: its output so far, a wait for a line, and a stop (kills it, removes its file). */
export interface RunningSnippet {
  child: ChildProcess
  output: () => string
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpExecArray>
  stop: () => void
}

/** Starts `code` (already rewritten) as a module in a child process, for a test that acts while it runs. */
export function startSnippet (code: string): RunningSnippet {
  const file = join(REPO_ROOT, 'test', 'docs', `snippet-${process.pid}-${++written}.tmp.ts`)
  writeFileSync(file, code)
  const child = spawn(join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), [file], { cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  child.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString('utf8') })
  const stop = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill()
    rmSync(file, { force: true })
  }
  const waitFor = async (pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const match = pattern.exec(output)
      if (match !== null) return match
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the snippet never printed ${String(pattern)}; its output:\n${output}`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return { child, output: () => output, waitFor, stop }
}
