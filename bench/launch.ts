/**
 * Starts the benchmarked servers: each compiled once to plain JavaScript (so
 * no TypeScript loader sits in the measured process or its memory), then run
 * in its own child process on a free loopback port, pinned to one core.
 */
import { type ChildProcess, execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startServerProcess } from '../test/helpers/server-process.js'
import type { ListeningMessage } from './child.js'
import type { ServerName } from './scenarios.js'

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
export const REPO_DIR = resolve(BENCH_DIR, '..')
export const RESULTS_DIR = join(BENCH_DIR, 'results')
const BUILD_DIR = join(RESULTS_DIR, 'build')
const START_TIMEOUT_MS = 30_000
/** USER_HZ: /proc reports CPU time in these ticks; 100 on every mainstream Linux. */
const CLOCK_TICKS = 100

/** Compiles bench/servers/*.ts (and what they import from lib/) into bench/results/build. */
export function compileServers (names: readonly string[]): void {
  const tsc = join(REPO_DIR, 'node_modules', 'typescript', 'bin', 'tsc')
  const files = names.map((name) => join(BENCH_DIR, 'servers', `${name}.ts`))
  execFileSync(process.execPath, [
    tsc, '--outDir', BUILD_DIR, '--rootDir', REPO_DIR,
    '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
    '--types', 'node', '--resolveJsonModule', '--esModuleInterop', '--skipLibCheck',
    // type errors are `npm run typecheck`'s job; here we only need the JavaScript
    '--noCheck', '--declaration', 'false', '--sourceMap', 'false',
    ...files
  ], { cwd: REPO_DIR, stdio: 'inherit' })
  // the build sits under the repo, so package.json ("type": "module") and node_modules resolve as usual
  writeFileSync(join(BUILD_DIR, '.built-at'), new Date().toISOString() + '\n')
}

export interface Pinning {
  server: string | null
  loader: string | null
}

/** Server on core 1, load generator on core 0, when taskset and two cores exist. */
export function choosePinning (enabled: boolean): Pinning {
  if (!enabled || availableParallelism() < 2) return { server: null, loader: null }
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' })
  } catch {
    return { server: null, loader: null }
  }
  return { server: '1', loader: '0' }
}

/** Pins every thread of the current process (the load generator). */
export function pinSelf (cpu: string): void {
  execFileSync('taskset', ['-a', '-cp', cpu, String(process.pid)], { stdio: 'ignore' })
}

export interface RunningServer<N extends string = ServerName> {
  name: N
  pid: number
  port: number
  child: ChildProcess
  stop: () => Promise<void>
}

export interface LaunchOptions {
  pin: string | null
  /** Extra node flags, e.g. `--cpu-prof`. */
  nodeArgs?: string[]
  /** Sent over IPC right after start (the bare server's canned answers). */
  init?: object
  cwd?: string
  /** Added to this process's environment. */
  env?: Record<string, string>
  /** A command the server runs under, e.g. `['valgrind', '--tool=callgrind']` (not with `pin`). */
  wrapper?: string[]
  /** How long the server may take to listen (a server under valgrind starts slowly). */
  startTimeoutMs?: number
}

export async function launch<N extends string = ServerName> (name: N, options: LaunchOptions): Promise<RunningServer<N>> {
  const file = join(BUILD_DIR, 'bench', 'servers', `${name}.js`)
  const nodeArgv = [...(options.nodeArgs ?? []), file]
  const [command, ...args] = options.wrapper !== undefined
    ? [...options.wrapper, process.execPath, ...nodeArgv]
    : options.pin === null ? [process.execPath, ...nodeArgv] : ['taskset', '-c', options.pin, process.execPath, ...nodeArgv]
  const started = await startServerProcess({
    name: `${name} server`,
    command: command as string,
    args,
    cwd: options.cwd ?? REPO_DIR,
    env: options.env === undefined ? process.env : { ...process.env, ...options.env },
    inherit: true,
    init: options.init,
    startTimeoutMs: options.startTimeoutMs ?? START_TIMEOUT_MS,
    readyFromMessage: (message: ListeningMessage) => message?.type === 'listening' ? message : undefined,
    requestStop: (child) => {
      if (!child.connected) return false
      child.send({ type: 'stop' })
      return true
    }
  })
  const { pid, port } = started.ready
  return { name, pid, port, child: started.child, stop: started.stop }
}

export interface Memory {
  /** Peak resident set since start or the last reset, in bytes. */
  peak: number
  /** Current resident set, in bytes. */
  current: number
}

export function readMemory (pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1024
  }
  return { peak: field('VmHWM'), current: field('VmRSS') }
}

/** CPU time (user + system) the process has used so far, in seconds. */
export function readCpuSeconds (pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // fields after the parenthesised command name; utime and stime are the 12th and 13th of them
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** Resets VmHWM to the current RSS so each run reports its own peak; false if the kernel refuses. */
export function resetPeakMemory (pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
    return true
  } catch {
    return false
  }
}
