/**
 * Real-socket helpers for the streaming tests: a server on 127.0.0.1, POSTs
 * over node:http with an agent the test owns, and an incremental SSE reader.
 */
import http, { type IncomingMessage } from 'node:http'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { Test } from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { parseSseBlock, type SseEvent, SseSplitter } from '../helpers/sse.js'

export const MODERN = '2026-07-28'
export const SERVER_INFO = { name: 'streams-test', version: '1.0.0' }

export function modernMeta (extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': {},
    ...extra
  }
}

export function modernHeaders (method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN, 'mcp-method': method }
  if (name !== undefined) headers['mcp-name'] = name
  return headers
}

/** A modern JSON-RPC request body with the required `_meta`. */
export function modernRequest (id: string | number, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(meta) } }
}

export function listenRequest (id: string | number, notifications: unknown): Record<string, unknown> {
  return modernRequest(id, 'subscriptions/listen', { notifications })
}

export type TestOptions = Omit<McpCapabilitiesOptions, 'serverInfo'> & { serverInfo?: McpCapabilitiesOptions['serverInfo'] }

/** A Fastify app with the plugin, listening on 127.0.0.1; `setup` runs before registration. */
export async function startApp (opts: TestOptions, setup?: (app: FastifyInstance) => void, fastifyOptions: FastifyServerOptions = {}): Promise<{ app: FastifyInstance, port: number }> {
  const app = Fastify(fastifyOptions)
  setup?.(app)
  await app.register(mcpCapabilities, { serverInfo: SERVER_INFO, ...opts })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { app, port: address.port }
}

/** Reads an SSE response as it arrives; `next()` waits for the following event. */
export class SseReader {
  readonly events: SseEvent[] = []
  readonly ended: Promise<void>
  readonly #splitter = new SseSplitter()
  #cursor = 0
  #waiters: Array<() => void> = []
  #done = false

  constructor (readonly res: IncomingMessage) {
    res.setEncoding('utf8')
    res.on('data', (chunk: string) => {
      for (const block of this.#splitter.push(chunk)) this.events.push(parseSseBlock(block))
      this.#wake()
    })
    this.ended = new Promise((resolve) => {
      const finish = (): void => {
        this.#done = true
        this.#wake()
        resolve()
      }
      res.once('end', finish)
      res.once('close', finish)
    })
  }

  /** Unparsed trailing text (should be empty once the stream ends). */
  get rest (): string {
    return this.#splitter.rest
  }

  async next (timeoutMs = 3000): Promise<SseEvent> {
    const deadline = Date.now() + timeoutMs
    while (this.#cursor >= this.events.length) {
      if (this.#done) throw new Error('stream ended')
      const left = deadline - Date.now()
      if (left <= 0) throw new Error('timed out waiting for an SSE event')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        this.#waiters.push(() => { clearTimeout(timer); resolve() })
      })
    }
    return this.events[this.#cursor++] as SseEvent
  }

  /** The next event that carries data (skipping keep-alive comments). */
  async nextMessage (timeoutMs = 3000): Promise<any> {
    for (;;) {
      const event = await this.next(timeoutMs)
      if (event.data !== undefined) return event.data
    }
  }

  #wake (): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const wake of waiters) wake()
  }
}

/**
 * Opens a `subscriptions/listen` stream on its own agent (destroyed with the
 * test), checks that it is acknowledged first and returns its reader.
 */
export async function openListen (t: Test, port: number, notifications: unknown, headers: Record<string, string> = {}, id: string | number = 'L'): Promise<SseReader> {
  const agent = new http.Agent()
  t.teardown(() => agent.destroy())
  const { res } = await post(port, listenRequest(id, notifications), { ...modernHeaders('subscriptions/listen'), ...headers }, agent)
  const reader = new SseReader(res)
  t.equal((await reader.nextMessage()).method, 'notifications/subscriptions/acknowledged')
  return reader
}

export { parseSse, type SseEvent } from '../helpers/sse.js'

export interface Posted {
  res: IncomingMessage
  req: http.ClientRequest
}

/** POSTs a JSON body over a real socket and resolves with the response head. */
export function post (port: number, body: unknown, headers: Record<string, string>, agent: http.Agent | false = false): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }
    }, (res) => resolve({ res, req }))
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

export async function readBody (res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8')
  let text = ''
  for await (const chunk of res) text += chunk
  return text
}

/** How many handles of each kind the process holds (sockets, servers, timers). */
export function activeResources (): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1
  return counts
}

/** Waits (bounded) until the counts of these kinds are back to `before`; returns the last counts. */
export async function settledResources (before: Record<string, number>, kinds: string[], timeoutMs = 2000): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const now = activeResources()
    if (kinds.every((kind) => (now[kind] ?? 0) <= (before[kind] ?? 0)) || Date.now() > deadline) return now
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Waits (bounded) until earlier tests' sockets and servers are gone, then returns the counts. */
export async function quietBaseline (timeoutMs = 3000): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const now = activeResources()
    if (((now.TCPSocketWrap ?? 0) === 0 && (now.TCPServerWrap ?? 0) === 0) || Date.now() > deadline) return now
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Records the intervals created and cleared while installed (the registry's keep-alive timer is one). */
export function watchIntervals (): { live: () => number, restore: () => void } {
  const live = new Set<unknown>()
  const { setInterval: originalSet, clearInterval: originalClear } = globalThis
  globalThis.setInterval = ((...args: Parameters<typeof setInterval>) => {
    const handle = originalSet(...args)
    live.add(handle)
    return handle
  }) as typeof setInterval
  globalThis.clearInterval = ((handle: Parameters<typeof clearInterval>[0]) => {
    live.delete(handle)
    originalClear(handle)
  }) as typeof clearInterval
  return {
    live: () => live.size,
    restore: () => {
      globalThis.setInterval = originalSet
      globalThis.clearInterval = originalClear
    }
  }
}

export function delay (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
