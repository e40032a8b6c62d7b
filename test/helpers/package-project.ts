/**
 * What the packaging tests share: a clean copy of the repository to pack from
 * (so the real scripts run without touching this checkout's dist/), and
 * commands run in it or in a consumer project without npm's lifecycle
 * variables pointing back at this checkout.
 */
import { execFile } from 'node:child_process'
import { cpSync, readFileSync, symlinkSync } from 'node:fs'
import { join, relative } from 'node:path'
import { REPO_ROOT } from './paths.js'

export const STEP_TIMEOUT_MS = 600_000

export interface Run { code: number | null, stdout: string, stderr: string }

/** npm's own lifecycle variables would point a nested npm at this checkout. */
export function childEnv (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const key of Object.keys(env)) {
    if (/^npm_(package_|lifecycle_|command$)/.test(key) || key === 'npm_config_local_prefix' || key === 'INIT_CWD') delete env[key]
  }
  return { ...env, ...extra }
}

/**
 * `bare`: without tap's NODE_OPTIONS loaders, which break an ES module `tsc`
 * such as TypeScript 7's (tap puts them back into any child it sees spawned,
 * so a shell drops them just before the program starts).
 */
export function run (command: string, args: string[], cwd: string, bare = false, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  if (bare) {
    args = ['-c', 'unset NODE_OPTIONS; exec "$0" "$@"', command, ...args]
    command = '/bin/sh'
  }
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: childEnv(env), timeout: STEP_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null
      resolve({ code, stdout, stderr })
    })
  })
}

export function show (r: Run): string {
  return `exit ${String(r.code)}\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`
}

/** The version of a package installed in this checkout (so the npm cache has it). */
export function installedVersion (name: string): string {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')).version
}

/**
 * The repository as a release is built from, without what is never packed
 * (tests, benchmarks, examples, builds, git), its node_modules linked to
 * this checkout's: what `npm ci` gives a clone.
 */
export function cleanCopy (destination: string): void {
  const skip = new Set(['node_modules', 'dist', '.git', '.tap', '.peers', 'test', 'bench', 'examples', 'coverage', 'release'])
  cpSync(REPO_ROOT, destination, { recursive: true, filter: (src) => !skip.has(relative(REPO_ROOT, src).split(/[\\/]/)[0] ?? '') || src === REPO_ROOT })
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(destination, 'node_modules'), 'dir')
}
