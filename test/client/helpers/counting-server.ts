/**
 * A modern MCP server stand-in for cache tests (node:http, 127.0.0.1, port 0)
 * that counts the requests it gets and answers server/discover with the hints
 * the test sets, per credential. It can hold answers back to test coalescing.
 */
import type { IncomingMessage } from 'node:http'
import { readBody, serveNode } from './serve.js'

export interface Hint {
  ttlMs?: unknown
  cacheScope?: unknown
  /** Answer with this HTTP status and no JSON-RPC body instead. */
  status?: number
}

export interface CountingServer {
  /** The endpoint; other paths on the same origin are distinct endpoints. */
  url: string
  origin: string
  /** Requests received, in order: path and Authorization header. */
  requests: Array<{ path: string, authorization: string | null }>
  /** What to answer; called per request. */
  hint: (req: { path: string, authorization: string | null }) => Hint
  /** While set, answers wait for it. */
  gate: Promise<void> | null
  close: () => Promise<void>
}

export async function startCountingServer (): Promise<CountingServer> {
  const state: Omit<CountingServer, 'url' | 'origin' | 'close'> = {
    requests: [],
    hint: () => ({ ttlMs: 60_000, cacheScope: 'private' }),
    gate: null
  }
  const served = await serveNode(async (req: IncomingMessage, res) => {
    const body = JSON.parse(await readBody(req))
    const seen = { path: req.url ?? '/', authorization: req.headers.authorization ?? null }
    state.requests.push(seen)
    const hint = state.hint(seen)
    if (state.gate !== null) await state.gate
    if (hint.status !== undefined) {
      res.writeHead(hint.status).end()
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({
      jsonrpc: '2.0',
      id: body.id,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        // Who the answer was made for, so a leak across credentials shows.
        capabilities: { tools: {}, experimental: { answeredFor: { authorization: seen.authorization, n: state.requests.length } } },
        ttlMs: hint.ttlMs,
        cacheScope: hint.cacheScope,
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'counting', version: '1' } }
      }
    }))
  })
  const origin = new URL(served.url).origin
  return Object.assign(state, { url: served.url, origin, close: served.close })
}
