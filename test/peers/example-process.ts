/**
 * Runs `examples/conformance-server.ts` the way `npm run start:conformance`
 * does (Node 20 + tsx, configured by HOST, PORT, MCP_ERA) on a free loopback
 * port, and reads the endpoint URL it prints.
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { REPO_DIR } from './node22.js'

export const EXAMPLE = join(REPO_DIR, 'examples', 'conformance-server.ts')
const START_TIMEOUT_MS = 60_000
const STOP_TIMEOUT_MS = 10_000

export interface ExampleProcess {
  /** The MCP endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string
  /** Everything the process wrote so far (for failure messages). */
  output: () => string
  close: () => Promise<void>
}

/** The environment of a child process, without the test runner's loaders. */
export function cleanEnv (extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra }
  delete env.NODE_OPTIONS
  return env
}

export function startConformanceExample (era: 'legacy' | 'modern' | 'dual' = 'dual'): Promise<ExampleProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
    cwd: REPO_DIR,
    env: cleanEnv({ HOST: '127.0.0.1', PORT: '0', MCP_ERA: era, LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  async function close (): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void close()
      reject(new Error(`the conformance example did not start within ${START_TIMEOUT_MS} ms:\n${output}`))
    }, START_TIMEOUT_MS)
    const onData = (chunk: Buffer): void => {
      output += chunk.toString()
      const match = /MCP endpoint \((\w+)\): (http:\/\/\S+)/.exec(output)
      if (match === null) return
      clearTimeout(timer)
      if (match[1] !== era) {
        void close()
        reject(new Error(`the example serves era ${String(match[1])}, expected ${era}`))
        return
      }
      resolve({ url: match[2] ?? '', output: () => output, close })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`the conformance example exited (${code ?? signal}) before listening:\n${output}`))
    })
  })
}
