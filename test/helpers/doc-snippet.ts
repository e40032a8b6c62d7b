/**
 * Runs a TypeScript block of the documentation as a user would run it: its
 * own module (written beside the tests so `fastify`, tap and the other
 * packages resolve from node_modules, then removed), the package's import
 * names pointed at the sources in lib/, run by tsx in a child process.
 */
import { execFile } from 'node:child_process'
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
