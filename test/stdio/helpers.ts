/** What the stdio tests share: the fixture a host would launch, and the environment it gets. */
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'

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
