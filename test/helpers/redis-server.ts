/**
 * A real redis-server for tests: started on a free 127.0.0.1 port with
 * persistence off, in a temporary directory, ready once it answers PING. It
 * can be stopped and started again on the same port, which is how the fault
 * tests cut Redis away from a running endpoint and bring it back.
 *
 * A machine without redis-server fails the test that asked for one, with a
 * message saying how to install it: the Redis tests never skip silently.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { freePort } from './server-process.js'

const START_TIMEOUT_MS = 10_000
const STOP_TIMEOUT_MS = 5_000
const PING_STEP_MS = 25
const HOST = '127.0.0.1'

export { freePort }

export interface RedisServer {
  readonly port: number
  /** `redis://127.0.0.1:<port>` */
  readonly url: string
  /** Whether the process is running (between start and stop). */
  readonly running: boolean
  /** Stops the process (SIGTERM, then SIGKILL); its data is gone. Idempotent. */
  stop (): Promise<void>
  /** Starts a fresh, empty server on the same port; resolves once it answers PING. */
  restart (): Promise<void>
  /** Stops it for good and removes its directory. */
  close (): Promise<void>
}

/** The redis-server binary on PATH (or `REDIS_SERVER`), or an error that says how to get one. */
export function redisServerBinary (): string {
  const fromEnv = process.env.REDIS_SERVER
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new Error(`REDIS_SERVER=${fromEnv} does not exist`)
    return fromEnv
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, 'redis-server')
    if (existsSync(candidate)) return candidate
  }
  throw new Error('redis-server was not found on PATH. The Redis tests need a real server: ' +
    'install the Debian package (apt-get install -y redis-server) or set REDIS_SERVER to the binary. ' +
    '.ci/run installs it when it is missing.')
}

/** One PING over a raw socket: true when the server answers PONG. */
export function ping (port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port })
    let answer = ''
    const done = (ok: boolean): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve(ok)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    socket.on('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1')
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG') || answer.startsWith('-NOAUTH'))
    })
    socket.on('error', () => done(false))
  })
}

function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export interface RedisServerOptions {
  /** Extra configuration, as redis-server command-line arguments (e.g. `['--requirepass', 'secret']`). */
  args?: string[]
  /** Gives the node a cluster bus port of its own (`--cluster-port`, a free port), kept across restarts. */
  clusterBusPort?: boolean
}

/** Starts a redis-server on a free loopback port (a few tries, in case another process takes the port first). */
export async function startRedisServer (options: RedisServerOptions = {}): Promise<RedisServer> {
  const binary = redisServerBinary()
  const dir = mkdtempSync(join(tmpdir(), 'mcp-redis-'))
  let child: ChildProcess | undefined
  let output = ''
  let port = 0
  let busPort = 0

  async function launch (): Promise<void> {
    output = ''
    const started = spawn(binary, [
      '--port', String(port), '--bind', HOST,
      '--save', '', '--appendonly', 'no',
      '--dir', dir, '--daemonize', 'no', '--loglevel', 'warning', '--logfile', '',
      ...(busPort !== 0 ? ['--cluster-port', String(busPort)] : []),
      ...(options.args ?? [])
    ], { stdio: ['ignore', 'pipe', 'pipe'] })
    child = started
    started.stdout?.on('data', (chunk: Buffer) => { output += chunk.toString() })
    started.stderr?.on('data', (chunk: Buffer) => { output += chunk.toString() })
    const exited = new Promise<void>((resolve) => started.once('exit', () => resolve()))
    let spawnError: Error | undefined
    started.once('error', (err) => { spawnError = err })
    const deadline = Date.now() + START_TIMEOUT_MS
    for (;;) {
      if (spawnError !== undefined) throw new Error(`could not run ${binary}: ${spawnError.message}`)
      if (started.exitCode !== null || started.signalCode !== null) {
        throw new Error(`redis-server exited (${started.exitCode ?? started.signalCode}) on port ${port}:\n${output}`)
      }
      // A server that wants a password answers NOAUTH: it is up all the same.
      if (await ping(port)) return
      if (Date.now() > deadline) {
        started.kill('SIGKILL')
        await exited
        throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms:\n${output}`)
      }
      await sleep(PING_STEP_MS)
    }
  }

  async function stop (): Promise<void> {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()))
    running.kill('SIGTERM')
    const timer = setTimeout(() => running.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  let lastError: unknown
  for (let attempt = 0; attempt < 3; attempt++) {
    port = await freePort()
    if (options.clusterBusPort === true) busPort = await freePort()
    try {
      await launch()
      lastError = undefined
      break
    } catch (err) {
      lastError = err
      await stop()
    }
  }
  if (lastError !== undefined) {
    rmSync(dir, { recursive: true, force: true })
    throw lastError
  }

  return {
    port,
    url: `redis://${HOST}:${port}`,
    get running () {
      return child !== undefined && child.exitCode === null && child.signalCode === null
    },
    stop,
    async restart () {
      await stop()
      await launch()
    },
    async close () {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
