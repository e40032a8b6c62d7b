/**
 * Where the tests find the repository and the vendored MCP spec data
 * (test/fixtures/mcp-spec, see its README): always inside the repository,
 * so a fresh clone placed anywhere tests the same.
 */
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const SPEC_DIR = join(REPO_ROOT, 'test', 'fixtures', 'mcp-spec')
