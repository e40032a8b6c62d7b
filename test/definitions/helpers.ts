/** A fresh app serving a module, with its log lines captured, and the spec's checks for listed definitions. */
import Fastify, { type FastifyInstance } from 'fastify'
import { Writable } from 'node:stream'
import type { Test } from 'tap'
import mcpCapabilities from '../../lib/index.js'
import type { ServerModule } from '../../lib/server-module/contract.js'

export interface LoggedApp {
  app: FastifyInstance
  logs: Array<Record<string, any>>
}

export async function serve (t: Test, server: object, extra: Record<string, unknown> = {}): Promise<LoggedApp> {
  const logs: Array<Record<string, any>> = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') logs.push(JSON.parse(line))
      done()
    }
  })
  const app = Fastify({ logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: server as ServerModule, serverInfo: { name: 'define-test', version: '1.0.0' }, ...extra })
  await app.ready()
  return { app, logs }
}

/** True when `value` holds no symbol keys anywhere (TypeBox's `Kind`, `Optional`, ...). */
export function hasNoSymbols (value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  if (Object.getOwnPropertySymbols(value).length > 0) return false
  return Object.values(value).every(hasNoSymbols)
}

export function isDeeplyFrozen (value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true
  return Object.isFrozen(value) && Object.values(value).every(isDeeplyFrozen)
}
