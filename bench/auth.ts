/**
 * What authorization costs an authorized request: `server/discover` with a
 * valid bearer token (a JWT verified once, then found in the verified-token
 * cache) against the same request to an open endpoint. Two server processes
 * (the same plugin and module, one with `authorization`), pinned to one core
 * while autocannon runs on the other, timed back to back in alternating
 * order; the table shows medians over rounds of the server's CPU time per
 * response, and their ratio (target: authorized ≤ 1.2 × anonymous).
 *
 *   npm run bench:auth                    # 5 rounds x 4 s
 *   ROUNDS=3 SECONDS=2 npm run bench:auth
 */
import { type ChildProcess, fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import autocannon, { type Result } from 'autocannon'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { choosePinning, pinSelf, readCpuSeconds } from './launch.js'

const ROUNDS = Number(process.env.ROUNDS ?? 5)
const SECONDS = Number(process.env.SECONDS ?? 4)
const CONNECTIONS = 10
const RESOURCE = 'http://127.0.0.1/mcp'
const ISSUER = 'http://127.0.0.1:9'
const MODERN = '2026-07-28'

type Mode = 'anonymous' | 'authorized'
interface Ready { type: 'ready', port: number, pid: number }

async function runServer (mode: Mode): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const { default: mcpCapabilities } = await import('../lib/index.js')
  const { callTool, DISCOVER_HINTS, SERVER_INFO, TOOLS } = await import('./catalog.js')
  const app = Fastify({ logger: false })
  const jwks = JSON.parse(process.env.BENCH_JWKS ?? '{}') as { keys: object[] }
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: structuredClone(TOOLS) }),
      callTool: (params: { name: string, arguments?: Record<string, unknown> }) => callTool(params.name, params.arguments ?? {})
    },
    serverInfo: { ...SERVER_INFO },
    cacheHints: { discover: { ...DISCOVER_HINTS } },
    ...(mode === 'authorized' ? { authorization: { resource: RESOURCE, authorizationServers: [ISSUER], scopesSupported: ['mcp'], jwt: { jwks } } } : {})
  })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const ready: Ready = { type: 'ready', port: typeof address === 'object' && address !== null ? address.port : 0, pid: process.pid }
  process.send?.(ready)
  process.on('disconnect', () => { void app.close().then(() => process.exit(0)) })
}

function start (mode: Mode, jwks: string, pin: string | null): Promise<{ child: ChildProcess, ready: Ready }> {
  const child = fork(fileURLToPath(import.meta.url), [mode], { env: { ...process.env, BENCH_JWKS: jwks }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${mode} server exited (${code})`)))
    child.on('message', (message: Ready) => {
      if (message?.type !== 'ready') return
      if (pin !== null) {
        // Pinned after start: every thread of the server on the server core.
        import('node:child_process').then(({ execFileSync }) => {
          execFileSync('taskset', ['-a', '-cp', pin, String(message.pid)], { stdio: 'ignore' })
          resolve({ child, ready: message })
        }, reject)
      } else resolve({ child, ready: message })
    })
  })
}

function discoverRequest (token?: string): { headers: Record<string, string>, body: string } {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': 'server/discover'
  }
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'server/discover',
    params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } } }
  })
  return { headers, body }
}

async function once (port: number, request: { headers: Record<string, string>, body: string }): Promise<{ status: number, body: string, challenge: string | null }> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', headers: request.headers, body: request.body })
  return { status: response.status, body: await response.text(), challenge: response.headers.get('www-authenticate') }
}

async function time (port: number, pid: number, request: { headers: Record<string, string>, body: string }, expectBody: string): Promise<{ cpuUs: number, rps: number }> {
  const cpuBefore = readCpuSeconds(pid)
  const result = await new Promise<Result>((resolve, reject) => {
    autocannon({ url: `http://127.0.0.1:${port}/mcp`, method: 'POST', headers: request.headers, body: request.body, connections: CONNECTIONS, pipelining: 1, duration: SECONDS, expectBody },
      (error, r) => { if (error) reject(error); else resolve(r) })
  })
  const cpu = readCpuSeconds(pid) - cpuBefore
  if (result.non2xx > 0 || result.errors > 0 || result.mismatches > 0) throw new Error(`bad responses: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.mismatches} mismatches`)
  return { cpuUs: (cpu * 1e6) / result.requests.total, rps: result.requests.average }
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

async function main (): Promise<void> {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  const jwk = { ...await exportJWK(publicKey), kid: 'bench', alg: 'ES256', use: 'sig' }
  const token = await new SignJWT({ sub: 'bench-user', client_id: 'bench', scope: 'mcp' })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench' })
    .setIssuer(ISSUER).setAudience(RESOURCE).setIssuedAt().setExpirationTime('2h')
    .sign(privateKey)
  const pinning = choosePinning(true)
  if (pinning.loader !== null) pinSelf(pinning.loader)
  const jwks = JSON.stringify({ keys: [jwk] })
  const servers = {
    anonymous: await start('anonymous', jwks, pinning.server),
    authorized: await start('authorized', jwks, pinning.server)
  }
  try {
    const open = discoverRequest()
    const authed = discoverRequest(token)
    // The answers, checked before anything is timed.
    const a = await once(servers.anonymous.ready.port, open)
    const b = await once(servers.authorized.ready.port, authed)
    const refused = await once(servers.authorized.ready.port, open)
    if (a.status !== 200 || b.status !== 200 || a.body !== b.body) throw new Error(`answers differ: ${a.status} ${b.status}\n${a.body}\n${b.body}`)
    if (refused.status !== 401 || refused.challenge === null) throw new Error('the authorized endpoint served a request without a token')
    const expectBody = a.body
    // Warm-up.
    await time(servers.anonymous.ready.port, servers.anonymous.ready.pid, open, expectBody)
    await time(servers.authorized.ready.port, servers.authorized.ready.pid, authed, expectBody)
    const runs: Record<Mode, Array<{ cpuUs: number, rps: number }>> = { anonymous: [], authorized: [] }
    for (let round = 0; round < ROUNDS; round++) {
      const order: Mode[] = round % 2 === 0 ? ['anonymous', 'authorized'] : ['authorized', 'anonymous']
      for (const mode of order) {
        const server = servers[mode].ready
        runs[mode].push(await time(server.port, server.pid, mode === 'anonymous' ? open : authed, expectBody))
      }
      process.stderr.write(`round ${round + 1}/${ROUNDS}: anonymous ${runs.anonymous.at(-1)?.cpuUs.toFixed(1)} µs, authorized ${runs.authorized.at(-1)?.cpuUs.toFixed(1)} µs\n`)
    }
    const cpu = { anonymous: median(runs.anonymous.map((r) => r.cpuUs)), authorized: median(runs.authorized.map((r) => r.cpuUs)) }
    const rps = { anonymous: median(runs.anonymous.map((r) => r.rps)), authorized: median(runs.authorized.map((r) => r.rps)) }
    const ratios = runs.authorized.map((r, i) => r.cpuUs / (runs.anonymous[i]?.cpuUs ?? Number.NaN))
    console.log(`\nserver/discover, ${ROUNDS} rounds x ${SECONDS} s, ${CONNECTIONS} connections${pinning.server === null ? ' (not pinned)' : ', server pinned to core 1'}`)
    console.log('| endpoint | req/s | CPU µs/req |')
    console.log('|---|---|---|')
    console.log(`| anonymous | ${rps.anonymous.toFixed(0)} | ${cpu.anonymous.toFixed(1)} |`)
    console.log(`| authorized (JWT, cached) | ${rps.authorized.toFixed(0)} | ${cpu.authorized.toFixed(1)} |`)
    const ratio = cpu.authorized / cpu.anonymous
    console.log(`\nauthorized / anonymous CPU µs/req: ${ratio.toFixed(3)} (median of per-round ratios ${median(ratios).toFixed(3)}, range ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}); target ≤ 1.2: ${ratio <= 1.2 ? 'met' : 'NOT met'}`)
  } finally {
    servers.anonymous.child.disconnect()
    servers.authorized.child.disconnect()
  }
}

const mode = process.argv[2]
if (mode === 'anonymous' || mode === 'authorized') await runServer(mode)
else await main()
