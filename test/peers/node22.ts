/**
 * The conformance suite's peers: the official suite runs on the Node 22
 * binary of test/helpers/peer-install.ts, and is itself installed once from
 * npm into `<repo>/.peers/conformance` (never into the project's
 * node_modules).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { ensureNode22, installedVersion, installOnce, PEERS_DIR } from '../helpers/peer-install.js'
import { REPO_ROOT } from '../helpers/paths.js'

export { NODE22 } from '../helpers/peer-install.js'

export const CONFORMANCE_VERSION = '0.2.0-alpha.12'

export const REPO_DIR = REPO_ROOT
const CONFORMANCE_PREFIX = join(PEERS_DIR, 'conformance')

/** The conformance package and its CLI entry point (run it with `NODE22`). */
export const CONFORMANCE_DIR = join(CONFORMANCE_PREFIX, 'node_modules', '@modelcontextprotocol', 'conformance')
export const CONFORMANCE_CLI = join(CONFORMANCE_DIR, 'dist', 'index.js')

export interface Peers {
  node: string
  cli: string
}

/** Installs the peers unless a finished install is already there; returns their paths. */
export async function ensurePeers (): Promise<Peers> {
  const node = await ensureNode22()
  await installOnce({
    dir: CONFORMANCE_PREFIX,
    packages: [`@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`],
    present: () => existsSync(CONFORMANCE_CLI) && installedVersion(CONFORMANCE_PREFIX, '@modelcontextprotocol/conformance') === CONFORMANCE_VERSION
  })
  return { node, cli: CONFORMANCE_CLI }
}
