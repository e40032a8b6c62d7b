/** What the stdio tests share: the fixture a host would launch, and the environment it gets. */
import { PassThrough, type Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'
import type { Test } from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'

export const FIXTURE = fileURLToPath(new URL('./fixtures/conformance-stdio.ts', import.meta.url))

/** `node --import tsx <fixture>`: what a host's `command` and `args` would be. */
export const COMMAND = process.execPath
export const ARGS: readonly string[] = ['--import', 'tsx', FIXTURE]

/** The environment of this process (strings only) plus `extra`. */
export function childEnv (extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) if (typeof value === 'string') env[key] = value
  return { ...env, ...extra }
}

/** Resolves when `check` holds, polling; rejects after `ms`. */
export async function eventually (check: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The JSON-RPC messages a transport writes to `output`, one per line, parsed as they arrive (the array fills in). */
export function collectMessages (output: Readable): Array<Record<string, any>> {
  const messages: Array<Record<string, any>> = []
  let buffered = ''
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines) messages.push(JSON.parse(line))
  })
  return messages
}

/** An endpoint over stdio whose every message waits in an `onRequest` hook until `release()` (see `gatedStdio`). */
export interface GatedStdio {
  /** What the test writes, as the host would. */
  readonly input: PassThrough
  /** Messages that reached the app (the hook), and messages it answered. */
  readonly entered: () => number
  readonly served: () => number
  /** Lets every held message and every later one through. */
  readonly release: () => void
  /** Resolves once every line the reader would take has reached the hook. */
  readonly settle: () => Promise<void>
}

/**
 * `server` on a Fastify endpoint served over stdio with `maxInFlight`, an
 * async `onRequest` hook (a token check, a rate limiter) holding every
 * message until `release()`: how the backpressure regressions see how many
 * messages the transport takes in. Released and closed at the test's end.
 */
export async function gatedStdio (t: Test, server: object, maxInFlight: number): Promise<GatedStdio> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server, serverInfo: { name: 'gated', version: '1.0.0' } })
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  let entered = 0
  let served = 0
  app.addHook('onRequest', async () => {
    entered++
    await gate
  })
  app.addHook('onResponse', async () => { served++ })
  const input = new PassThrough()
  const output = new PassThrough()
  output.resume()
  const stdio = await serveStdio(app, { input, output, maxInFlight, handleSignals: false })
  // Released first: closing waits for the calls the hook holds.
  t.teardown(async () => {
    release()
    await stdio.close()
  })
  return {
    input,
    entered: () => entered,
    served: () => served,
    release: () => release(),
    settle: async () => {
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    }
  }
}
