/**
 * What a legacy session costs per request: the same legacy `tools/call`
 * POST sent with and without `Mcp-Session-Id` to one server process with
 * `sessions: true`, its sessions in memory, then on Redis (a redis-server
 * started here, test/helpers/redis-server.ts). The server's CPU time per
 * response is read from /proc around each autocannon run; runs alternate
 * order; the table shows medians and the ratio with / without per store
 * (target ≤ 1.05). A third run per round sends a header the server ignores,
 * of the same size as `Mcp-Session-Id` (the bytes alone): with / that ratio
 * is what the session lookup itself costs. On Redis a session is read from Redis at most once per
 * min(idleTimeout / 4, 5 s) per instance (lib/redis/redis-session-store.ts).
 *
 *   npm run bench:sessions                 # 5 rounds x 4 s per store
 *   ROUNDS=3 SECONDS=2 npm run bench:sessions
 */
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autocannon, { type Result } from 'autocannon'
import { readCpuSeconds } from './launch.js'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const SECONDS = Number(process.env.SECONDS ?? 4)
const CONNECTIONS = 10
const LEGACY = '2025-11-25'

type Store = 'memory' | 'redis'
interface Ready { type: 'ready', port: number, pid: number }

async function runServer (store: Store): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const { default: mcpCapabilities, defineTools } = await import('../lib/index.js')
  const { redisScale } = await import('../lib/redis/index.js')
  const app = Fastify({ logger: false })
  await app.register(mcpCapabilities, {
    server: defineTools({ echo: { handler: () => ({ content: [{ type: 'text', text: 'hi' }] }) } }),
    serverInfo: { name: 'bench-sessions', version: '1' },
    sessions: { maxSessions: 100, maxSessionsPerCaller: 100 },
    ...(store === 'redis' ? { requestState: { secret: 'bench-sessions-request-state-secret-0123456789' }, scale: redisScale({ url: process.env.BENCH_REDIS_URL as string, prefix: 'bench:' }) } : {})
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  process.send?.({ type: 'ready', port: typeof address === 'object' && address !== null ? address.port : 0, pid: process.pid } satisfies Ready)
  process.on('disconnect', () => { void app.close().then(() => process.exit(0)) })
}

function start (store: Store, redisUrl: string | undefined): Promise<{ child: ChildProcess, ready: Ready }> {
  const child = fork(fileURLToPath(import.meta.url), [store], { env: { ...process.env, BENCH_REDIS_URL: redisUrl ?? '' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${store} server exited (${code})`)))
    child.on('message', (message: Ready) => { if (message?.type === 'ready') resolve({ child, ready: message }) })
  })
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY }
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } })

async function openSession (port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } })
  })
  await response.text()
  const session = response.headers.get('mcp-session-id')
  if (session === null) throw new Error('no session issued')
  return session
}

async function time (port: number, pid: number, headers: Record<string, string>): Promise<number> {
  const before = readCpuSeconds(pid)
  const result = await new Promise<Result>((resolve, reject) => {
    autocannon({ url: `http://127.0.0.1:${port}/mcp`, method: 'POST', headers, body: CALL, connections: CONNECTIONS, pipelining: 1, duration: SECONDS },
      (error, r) => { if (error) reject(error); else resolve(r) })
  })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`bad responses: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return ((readCpuSeconds(pid) - before) * 1e6) / result.requests.total
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

async function measure (store: Store, redisUrl?: string): Promise<{ without: number, ignored: number, with: number }> {
  const { child, ready } = await start(store, redisUrl)
  try {
    const session = await openSession(ready.port)
    const plain = HEADERS
    const named = { ...HEADERS, 'mcp-session-id': session }
    // Same name length, same value: parsed like the real one, read by nothing.
    const ignored = { ...HEADERS, 'mcp-session-ix': session }
    await time(ready.port, ready.pid, plain)
    await time(ready.port, ready.pid, named)
    const runs = { without: [] as number[], ignored: [] as number[], with: [] as number[] }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? ['without', 'ignored', 'with'] as const : ['with', 'ignored', 'without'] as const
      const headers = { without: plain, ignored, with: named }
      for (const which of order) runs[which].push(await time(ready.port, ready.pid, headers[which]))
      process.stderr.write(`${store} round ${round + 1}/${ROUNDS}: without ${runs.without.at(-1)?.toFixed(1)} µs, ignored header ${runs.ignored.at(-1)?.toFixed(1)} µs, with ${runs.with.at(-1)?.toFixed(1)} µs\n`)
    }
    return { without: median(runs.without), ignored: median(runs.ignored), with: median(runs.with) }
  } finally {
    child.disconnect()
  }
}

async function main (): Promise<void> {
  const { startRedisServer } = await import('../test/helpers/redis-server.js')
  const redis = await startRedisServer()
  try {
    const results = { memory: await measure('memory'), redis: await measure('redis', redis.url) }
    console.log(`\nlegacy tools/call, ${ROUNDS} rounds x ${SECONDS} s, ${CONNECTIONS} connections: server CPU µs per response (median)`)
    console.log('| sessions in | without a session | an ignored header of the same size | with a session | with / without | with / ignored header |')
    console.log('|---|---|---|---|---|---|')
    for (const store of ['memory', 'redis'] as const) {
      const { without, ignored, with: named } = results[store]
      console.log(`| ${store} | ${without.toFixed(1)} | ${ignored.toFixed(1)} | ${named.toFixed(1)} | ${(named / without).toFixed(3)} (target ≤ 1.05: ${named / without <= 1.05 ? 'met' : 'NOT met'}) | ${(named / ignored).toFixed(3)} |`)
    }
  } finally {
    await redis.close()
  }
}

const store = process.argv[2]
if (store === 'memory' || store === 'redis') await runServer(store)
else await main()
