/**
 * Where the project's shared folder (spec schemas, examples, design notes) is:
 * `MCP_SHARED` when set, else the first `shared/` with an `mcp-spec/` inside,
 * found beside the repository or beside one of its ancestors (worktrees sit
 * deeper than the main clone).
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

function findShared (): string {
  const fromEnv = process.env.MCP_SHARED
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv)
  let dir = repoRoot
  for (;;) {
    const candidate = join(dirname(dir), 'shared')
    if (existsSync(join(candidate, 'mcp-spec'))) return candidate
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`no shared/mcp-spec folder found above ${repoRoot}; set MCP_SHARED`)
    dir = parent
  }
}

export const SHARED_DIR = findShared()
export const SPEC_DIR = join(SHARED_DIR, 'mcp-spec')
