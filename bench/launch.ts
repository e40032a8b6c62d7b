/**
 * Starts the benchmarked servers: each compiled once to plain JavaScript (so
 * no TypeScript loader sits in the measured process or its memory), then run
 * in its own child process on a free loopback port, pinned to one core.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { ListeningMessage } from './child.js'
import type { ServerName } from './scenarios.js'

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url))
export const REPO_DIR = resolve(BENCH_DIR, '..')
export const RESULTS_DIR = join(BENCH_DIR, 'results')
const BUILD_DIR = join(RESULTS_DIR, 'build')
const START_TIMEOUT_MS = 30_000
const STOP_TIMEOUT_MS = 10_000
/** USER_HZ: /proc reports CPU time in these ticks; 100 on every mainstream Linux. */
const CLOCK_TICKS = 100

/** Compiles bench/servers/*.ts (and what they import from lib/) into bench/results/build. */
export function compileServers (names: readonly ServerName[]): void {
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

export interface RunningServer {
  name: ServerName
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
}

export function launch (name: ServerName, options: LaunchOptions): Promise<RunningServer> {
  const file = join(BUILD_DIR, 'bench', 'servers', `${name}.js`)
  const nodeArgv = [...(options.nodeArgs ?? []), file]
  const child = options.pin === null
    ? spawn(process.execPath, nodeArgv, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], cwd: options.cwd ?? REPO_DIR })
    : spawn('taskset', ['-c', options.pin, process.execPath, ...nodeArgv], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], cwd: options.cwd ?? REPO_DIR })

  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    if (child.connected) child.send({ type: 'stop' })
    else child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} server did not report a port within ${START_TIMEOUT_MS} ms`))
    }, START_TIMEOUT_MS)
    child.once('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    const onEarlyExit = (code: number | null, signal: string | null): void => {
      clearTimeout(timer)
      reject(new Error(`${name} server exited before listening (code ${code}, signal ${signal})`))
    }
    child.once('exit', onEarlyExit)
    child.on('message', (message: ListeningMessage) => {
      if (message?.type !== 'listening') return
      clearTimeout(timer)
      child.off('exit', onEarlyExit)
      resolve({ name, pid: message.pid, port: message.port, child, stop })
    })
    if (options.init !== undefined) child.send(options.init)
  })
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
