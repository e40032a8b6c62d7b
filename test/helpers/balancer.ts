/**
 * A plain round-robin HTTP load balancer for tests: every request goes to the
 * next upstream in turn (nothing sticky: no cookies, no hashing), with its
 * method, path, headers and body passed through and the answer streamed back
 * as it arrives (SSE responses included). node:http only, 127.0.0.1 only.
 *
 * An upstream that cannot be reached answers 502 with a JSON-RPC error body,
 * like a real proxy would answer with its own page.
 */
import http from 'node:http'

export interface Balancer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string
  readonly port: number
  /** How many requests each upstream received, in upstream order. */
  readonly hits: readonly number[]
  close (): Promise<void>
}

export interface BalancerOptions {
  /** Upstream origins, e.g. `http://127.0.0.1:41000` (paths are kept from the request). */
  upstreams: string[]
}

export async function startBalancer (options: BalancerOptions): Promise<Balancer> {
  const upstreams = options.upstreams.map((origin) => new URL(origin))
  if (upstreams.length === 0) throw new Error('the balancer needs at least one upstream')
  const hits = upstreams.map(() => 0)
  // Its own agent: sockets to upstreams are not shared with the test's client requests.
  const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity })
  let next = 0

  const server = http.createServer((req, res) => {
    const index = next
    next = (next + 1) % upstreams.length
    hits[index] = (hits[index] ?? 0) + 1
    const target = upstreams[index] as URL
    const upstream = http.request({
      host: target.hostname,
      port: target.port,
      method: req.method,
      path: req.url,
      headers: req.headers,
      agent
    })
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders)
      // SSE: pass each chunk on at once.
      res.flushHeaders()
      answer.pipe(res)
      answer.on('error', () => res.destroy())
    })
    upstream.on('error', (err) => {
      if (res.headersSent) {
        res.destroy()
        return
      }
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32603, message: `Bad gateway: ${err.message}` } }))
    })
    // A client that goes away takes its upstream request with it (a listen stream ends on both sides).
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy()
    })
    req.pipe(upstream)
  })
  server.keepAliveTimeout = 5_000

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the balancer has no port')

  return {
    origin: `http://127.0.0.1:${address.port}`,
    port: address.port,
    hits,
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      agent.destroy()
    }
  }
}
