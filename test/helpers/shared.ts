/**
 * Where the shared folder (spec schemas, design notes) lives: `MCP_SHARED`
 * when set, else the first `shared/` with an `mcp-spec/` folder found next to
 * the repo or one of its ancestors (a worktree sits deeper than the clone).
 */
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

function findShared (): string {
  const fromEnv = process.env.MCP_SHARED
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv)
  let dir = REPO_ROOT
  for (;;) {
    const parent = dirname(dir)
    const candidate = join(parent, 'shared')
    if (existsSync(join(candidate, 'mcp-spec'))) return candidate
    if (parent === dir) throw new Error('shared folder not found: set MCP_SHARED')
    dir = parent
  }
}

export const SHARED_DIR = findShared()
export const SPEC_DIR = join(SHARED_DIR, 'mcp-spec')
