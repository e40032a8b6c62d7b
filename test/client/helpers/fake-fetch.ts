/**
 * An injectable `fetch` for unit tests: records every call and answers from
 * a script. It honours `init.signal` the way the real fetch does.
 */
import type { FetchLike } from '../../../lib/client/exchange.js'

export interface Call {
  url: string
  method: string
  headers: Headers
  /** The parsed JSON body, or undefined. */
  body: any
}

export type Script = (call: Call, index: number) => Response | Promise<Response>

export function fakeFetch (script: Script): FetchLike & { calls: Call[] } {
  const calls: Call[] = []
  const fn = async (url: string, init: RequestInit): Promise<Response> => {
    const call: Call = {
      url,
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined
    }
    calls.push(call)
    const signal = init.signal ?? undefined
    if (signal?.aborted === true) throw signal.reason
    return await new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason)
      signal?.addEventListener('abort', onAbort, { once: true })
      Promise.resolve(script(call, calls.length - 1)).then(resolve, reject)
        .finally(() => signal?.removeEventListener('abort', onAbort))
    })
  }
  return Object.assign(fn, { calls })
}

export function json (status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

export function sse (status: number, messages: unknown[], headers: Record<string, string> = {}): Response {
  const text = messages.map(m => `event: message\ndata: ${JSON.stringify(m)}\n\n`).join('')
  return new Response(text, { status, headers: { 'content-type': 'text/event-stream', ...headers } })
}

export function discoverResult (overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: { listChanged: true } },
    ttlMs: 60_000,
    cacheScope: 'private',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fake', version: '1.0.0' } },
    ...overrides
  }
}

export function initializeResult (overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocolVersion: '2025-11-25',
    capabilities: { tools: {}, logging: {} },
    serverInfo: { name: 'legacy-fake', version: '0.9.0' },
    ...overrides
  }
}

/** A fake server that answers like a modern one: discover results to server/discover. */
export function modernServer (result: Record<string, unknown> = discoverResult()): Script {
  return call => json(200, { jsonrpc: '2.0', id: call.body.id, result })
}

/** A fake legacy server: the probe gets `probe`, initialize a result, notifications 202. */
export function legacyServer (probe: (call: Call) => Response, init: Record<string, unknown> = initializeResult(), initHeaders: Record<string, string> = {}): Script {
  return call => {
    if (call.method === 'DELETE') return new Response(null, { status: 200 })
    if (call.body?.method === 'server/discover') return probe(call)
    if (call.body?.method === 'initialize') return json(200, { jsonrpc: '2.0', id: call.body.id, result: init }, initHeaders)
    if (call.body?.method === 'notifications/initialized') return new Response(null, { status: 202 })
    return json(400, { jsonrpc: '2.0', id: call.body?.id ?? null, error: { code: -32600, message: 'unexpected' } })
  }
}
