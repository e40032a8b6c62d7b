/**
 * The one way tests and benchmarks run a server in a child process: spawn it,
 * wait until it says it is ready (a line on stdout/stderr, or an IPC message),
 * keep its output for failure messages, and stop it (SIGTERM, then SIGKILL).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import net from 'node:net'

const DEFAULT_START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 10_000

export interface ServerProcessOptions<T> {
  /** What a human would type: the command and its arguments. */
  command: string
  args: readonly string[]
  cwd: string
  env?: NodeJS.ProcessEnv
  /** Readiness from the output so far (stdout and stderr), or undefined while not ready. */
  readyFromOutput?: (output: string) => T | undefined
  /** Readiness from an IPC message (the child is then spawned with an IPC channel). */
  readyFromMessage?: (message: any) => T | undefined
  /** Sent over IPC right after the start. */
  init?: object
  /** Let the child's output through to ours instead of collecting it. */
  inherit?: boolean
  /** How the child is asked to stop before SIGTERM (e.g. an IPC message). */
  requestStop?: (child: ChildProcess) => boolean
  startTimeoutMs?: number
  /** Named in error messages. */
  name: string
}

export interface ServerProcess<T> {
  child: ChildProcess
  /** What readiness reported (a URL, a port, ...). */
  ready: T
  /** Everything the process wrote so far (empty when its output is inherited). */
  output: () => string
  stop: () => Promise<void>
}

/** The environment of a child process, without the test runner's loaders. */
export function cleanEnv (extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra }
  delete env.NODE_OPTIONS
  return env
}

export function startServerProcess<T> (options: ServerProcessOptions<T>): Promise<ServerProcess<T>> {
  const ipc = options.readyFromMessage !== undefined
  const out = options.inherit === true ? 'inherit' : 'pipe'
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env ?? cleanEnv(),
    stdio: ipc ? ['ignore', out, out, 'ipc'] : ['ignore', out, out]
  })
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  async function stop (): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    if (options.requestStop?.(child) !== true) child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (error: Error): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void stop()
      reject(error)
    }
    const succeed = (ready: T): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ child, ready, output: () => output, stop })
    }
    const timer = setTimeout(() => fail(new Error(`${options.name} did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const ready = options.readyFromOutput?.(output)
      if (ready !== undefined) succeed(ready)
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.on('message', (message) => {
      const ready = options.readyFromMessage?.(message)
      if (ready !== undefined) succeed(ready)
    })
    child.once('error', fail)
    child.once('exit', (code, signal) => fail(new Error(`${options.name} exited (${code ?? signal}) before it was ready:\n${output}`)))
    if (options.init !== undefined) child.send(options.init)
  })
}

/** Runs `examples/<file>` as `npm start` does (Node + tsx, HOST/PORT/... from `env`) until `readyFromOutput` finds its URL. */
export function startExample<T> (repoRoot: string, file: string, env: Record<string, string>, readyFromOutput: (output: string) => T | undefined): Promise<ServerProcess<T>> {
  return startServerProcess({
    name: `examples/${file}`,
    command: process.execPath,
    args: ['--import', 'tsx', `examples/${file}`],
    cwd: repoRoot,
    env: cleanEnv({ HOST: '127.0.0.1', PORT: '0', ...env }),
    readyFromOutput
  })
}

/** A port free on 127.0.0.1 right now (for servers whose URL must be known before they listen). */
export function freePort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port'))
        else resolve(address.port)
      })
    })
  })
}
