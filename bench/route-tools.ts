/**
 * What a route-backed tools/call costs against calling the same route
 * directly: the bookshelf example (examples/rest-api.ts: auth hook, TypeBox
 * validation, serializer), `GET /api/books/1` beside the tool `get_book`
 * with `{ id: 1 }`, legacy and modern, side by side in one process.
 *
 * - inject: in-process, no socket (`app.inject`), time per request;
 * - http: over a loopback keep-alive socket (`fetch`), client in the same
 *   process, time per request (the client's own cost is in both columns).
 *
 * Rounds alternate the variants; the best round of each is kept.
 *
 *   npm run bench:routes              # 5 rounds of 2000 requests
 *   npm run bench:routes -- --quick   # 3 rounds of 500
 */
import { buildRestExample } from '../examples/rest-api.js'

const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 3 : 5
const REQUESTS = quick ? 500 : 2000
const KEY = 'bench-key'
process.env.LOG_LEVEL = 'silent'

const app = await buildRestExample({ apiKey: KEY })
await app.listen({ host: '127.0.0.1', port: 0 })
const address = app.server.address()
if (address === null || typeof address === 'string') throw new Error('no port')
const base = `http://127.0.0.1:${address.port}`

const auth = { authorization: `Bearer ${KEY}` }
const legacyHeaders = { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
const legacyBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_book', arguments: { id: 1 } } })
const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const modernHeaders = { ...legacyHeaders, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_book' }
const modernBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_book', arguments: { id: 1 }, _meta: modernMeta } })

/** light-my-request's per-call schema check of its options (~100 µs) is skipped here as route tools skip it. */
const NO_CHECK = { validate: false } as object

type Variant = { name: string, run: () => Promise<number> }

function check (status: number, body: string, what: string): void {
  if (status !== 200 || !body.includes('A Wizard of Earthsea') || body.includes('"isError"')) throw new Error(`${what}: unexpected answer ${status} ${body.slice(0, 200)}`)
}

const variants: Variant[] = [
  { name: 'inject  route  GET /api/books/1', run: async () => { const r = await app.inject({ method: 'GET', url: '/api/books/1', headers: auth, ...NO_CHECK }); check(r.statusCode, r.body, 'route'); return 1 } },
  { name: 'inject  tool   legacy tools/call', run: async () => { const r = await app.inject({ method: 'POST', url: '/mcp', headers: legacyHeaders, payload: legacyBody, ...NO_CHECK }); check(r.statusCode, r.body, 'legacy'); return 1 } },
  { name: 'inject  tool   modern tools/call', run: async () => { const r = await app.inject({ method: 'POST', url: '/mcp', headers: modernHeaders, payload: modernBody, ...NO_CHECK }); check(r.statusCode, r.body, 'modern'); return 1 } },
  { name: 'http    route  GET /api/books/1', run: async () => { const r = await fetch(`${base}/api/books/1`, { headers: auth }); check(r.status, await r.text(), 'route'); return 1 } },
  { name: 'http    tool   legacy tools/call', run: async () => { const r = await fetch(`${base}/mcp`, { method: 'POST', headers: legacyHeaders, body: legacyBody }); check(r.status, await r.text(), 'legacy'); return 1 } },
  { name: 'http    tool   modern tools/call', run: async () => { const r = await fetch(`${base}/mcp`, { method: 'POST', headers: modernHeaders, body: modernBody }); check(r.status, await r.text(), 'modern'); return 1 } }
]

// Warm-up: every path compiled and cached before anything is timed.
for (const variant of variants) for (let i = 0; i < 200; i++) await variant.run()

const best = new Map<string, { wall: number, cpu: number }>()
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of variants) {
    const cpu0 = process.cpuUsage()
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < REQUESTS; i++) await variant.run()
    const wall = Number(process.hrtime.bigint() - t0) / 1e3 / REQUESTS
    const used = process.cpuUsage(cpu0)
    const cpu = (used.user + used.system) / REQUESTS
    const kept = best.get(variant.name)
    if (kept === undefined || wall < kept.wall) best.set(variant.name, { wall, cpu })
  }
}
await app.close()

const rows = variants.map((v) => ({ name: v.name, ...best.get(v.name)! }))
const routeOf = (name: string): { wall: number, cpu: number } => rows.find((r) => r.name.startsWith(name.slice(0, 8)) && r.name.includes('route'))!
console.log(`route-backed tools/call against the same route (${ROUNDS} rounds × ${REQUESTS} sequential requests, best round)`)
console.log('variant                             µs/req (wall)  µs CPU/req  × route (wall)  × route (CPU)')
for (const row of rows) {
  const route = routeOf(row.name)
  console.log(`${row.name.padEnd(36)}${row.wall.toFixed(1).padStart(13)}${row.cpu.toFixed(1).padStart(12)}${(row.wall / route.wall).toFixed(2).padStart(16)}${(row.cpu / route.cpu).toFixed(2).padStart(15)}`)
}
