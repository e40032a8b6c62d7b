/**
 * What stdio costs next to HTTP, side by side: the same app (one defined
 * tool, bench/stdio-server.ts) in a child process pinned to one core
 * (`taskset -c 0` when there is one), answering modern `tools/call` round
 * trips one at a time, over Streamable HTTP on 127.0.0.1 (node:http,
 * keep-alive) and over `serveStdio` (a line on its stdin, the answer read
 * from its stdout). Rounds alternate; kept per round trip: wall time, and
 * the server's own CPU time (the child's `process.cpuUsage()` before and
 * after), the medians side by side with the ratio stdio / HTTP, and the
 * ratio of each round's pair (steadier on a loaded machine). Then a
 * burst: 10,000 requests written to the stdio server at once, the answers
 * read as they come, with the server's heap (after a full collection)
 * before and after.
 *
 *   node --expose-gc --import tsx bench/stdio.ts [--rounds 5] [--requests 2000] [--burst 10000] [--cpu-prof dir]
 *
 * `--cpu-prof dir` runs the stdio server under `node --cpu-prof` (the
 * profile is written to dir when it exits).
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '2000' },
    burst: { type: 'string', default: '10000' },
    'cpu-prof': { type: 'string' }
  }
})
const ROUNDS = Number(values.rounds)
const REQUESTS = Number(values.requests)
const BURST = Number(values.burst)
const SERVER = fileURLToPath(new URL('./stdio-server.ts', import.meta.url))
const PIN = existsSync('/usr/bin/taskset') ? ['/usr/bin/taskset', '-c', '0'] : []

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

function call (id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: id, b: 1 }, _meta: META } })
}

interface Server {
  child: ChildProcess
  ask: <T>(question: string) => Promise<T>
  first: Promise<Record<string, unknown>>
}

function start (mode: 'http' | 'stdio', profileDir?: string): Server {
  const profile = profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir]
  const [command, ...args] = [...PIN, process.execPath, '--expose-gc', ...profile, '--import', 'tsx', SERVER, mode]
  const child = spawn(command as string, args, { stdio: ['pipe', 'pipe', 'inherit', 'ipc'] })
  const waiting: Array<(message: Record<string, unknown>) => void> = []
  const first = new Promise<Record<string, unknown>>((resolve) => { waiting.push(resolve) })
  child.on('message', (message: Record<string, unknown>) => waiting.shift()?.(message))
  return {
    child,
    first,
    ask: <T>(question: string) => new Promise<T>((resolve) => {
      waiting.push((message) => resolve(message as T))
      child.send(question)
    })
  }
}

type RoundTrips = (n: number) => Promise<void>

async function httpClient (url: string): Promise<RoundTrips> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' }
  let id = 0
  const one = (): Promise<void> => new Promise((resolve, reject) => {
    id++
    const expected = id
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => { body += chunk })
      res.on('end', () => {
        if ((JSON.parse(body) as { id?: number }).id !== expected) reject(new Error(`HTTP: unexpected answer ${body}`))
        else resolve()
      })
    })
    req.on('error', reject)
    req.end(call(expected))
  })
  return async (n) => {
    for (let i = 0; i < n; i++) await one()
  }
}

function stdioClient (child: ChildProcess): { run: RoundTrips, onLine: (listener: (line: string) => void) => void } {
  let buffered = ''
  let listener: ((line: string) => void) | undefined
  child.stdout?.setEncoding('utf8')
  child.stdout?.on('data', (chunk: string) => {
    buffered += chunk
    let newline
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      listener?.(line)
    }
  })
  let id = 0
  return {
    onLine: (next) => { listener = next },
    run: async (n) => {
      for (let i = 0; i < n; i++) {
        id++
        const line = await new Promise<string>((resolve) => {
          listener = resolve
          child.stdin?.write(call(id) + '\n')
        })
        if ((JSON.parse(line) as { id?: number }).id !== id) throw new Error(`stdio: unexpected answer ${line}`)
      }
    }
  }
}

interface Sample { wallUs: number, cpuUs: number, systemUs: number }

async function measure (server: Server, run: RoundTrips): Promise<Sample> {
  const before = await server.ask<{ cpuUs: number, systemUs: number }>('cpu')
  const start = process.hrtime.bigint()
  await run(REQUESTS)
  const wall = Number(process.hrtime.bigint() - start) / 1000
  const after = await server.ask<{ cpuUs: number, systemUs: number }>('cpu')
  return { wallUs: wall / REQUESTS, cpuUs: (after.cpuUs - before.cpuUs) / REQUESTS, systemUs: (after.systemUs - before.systemUs) / REQUESTS }
}

function median (list: number[]): number {
  const sorted = [...list].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

async function stop (server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.stdin?.end()
  server.child.send('exit')
  await exited
}

const httpServer = start('http')
const { url } = await httpServer.first as { url: string }
const http = await httpClient(url)
const stdioServer = start('stdio', values['cpu-prof'])
await stdioServer.first
const stdio = stdioClient(stdioServer.child).run

// Warm-up: JIT, the keep-alive socket, the first-call paths.
await http(500)
await stdio(500)
const samples = { http: [] as Sample[], stdio: [] as Sample[] }
for (let round = 0; round < ROUNDS; round++) {
  samples.http.push(await measure(httpServer, http))
  samples.stdio.push(await measure(stdioServer, stdio))
}
await stop(httpServer)
const wall = { http: median(samples.http.map((s) => s.wallUs)), stdio: median(samples.stdio.map((s) => s.wallUs)) }
const cpu = { http: median(samples.http.map((s) => s.cpuUs)), stdio: median(samples.stdio.map((s) => s.cpuUs)) }
const system = { http: median(samples.http.map((s) => s.systemUs)), stdio: median(samples.stdio.map((s) => s.systemUs)) }
console.log(`tools/call round trip, one at a time (${ROUNDS} rounds x ${REQUESTS}, medians; server in its own process${PIN.length > 0 ? ' pinned to core 0' : ''})`)
console.log(`  HTTP (127.0.0.1, keep-alive): ${wall.http.toFixed(1)} µs wall, ${cpu.http.toFixed(1)} µs server CPU (${system.http.toFixed(1)} µs of it in the kernel)`)
console.log(`  stdio (serveStdio):           ${wall.stdio.toFixed(1)} µs wall, ${cpu.stdio.toFixed(1)} µs server CPU (${system.stdio.toFixed(1)} µs of it in the kernel)`)
console.log(`  ratio stdio / HTTP:           ${(wall.stdio / wall.http).toFixed(2)}x wall, ${(cpu.stdio / cpu.http).toFixed(2)}x server CPU`)
// Each round's stdio next to the HTTP measured just before it: a machine whose load changes from one second to the next shifts both.
const paired = samples.stdio.map((s, i) => s.cpuUs / (samples.http[i] as Sample).cpuUs).sort((a, b) => a - b)
console.log(`  server CPU ratio per round:   median ${median(paired).toFixed(2)}x (${paired.map((r) => r.toFixed(2)).join(', ')})`)

// The burst: every request written before the first answer is read.
const heapBefore = (await stdioServer.ask<{ heapUsed: number }>('heap')).heapUsed
let answered = 0
const done = new Promise<void>((resolve) => {
  stdioServer.child.stdout?.removeAllListeners('data')
  stdioServer.child.stdout?.on('data', (chunk: string) => {
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) answered++
    if (answered >= BURST) resolve()
  })
})
const started = process.hrtime.bigint()
let text = ''
for (let id = 1_000_000; id < 1_000_000 + BURST; id++) text += call(id) + '\n'
stdioServer.child.stdin?.write(text)
await done
const ms = Number(process.hrtime.bigint() - started) / 1e6
const heapAfter = (await stdioServer.ask<{ heapUsed: number }>('heap')).heapUsed
await stop(stdioServer)
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
console.log(`burst of ${BURST} tools/call written at once (${mib(Buffer.byteLength(call(1)) * BURST)} of input): all answered in ${ms.toFixed(0)} ms`)
console.log(`  server heap after a full GC: ${mib(heapBefore)} before, ${mib(heapAfter)} after (${heapAfter >= heapBefore ? '+' : ''}${mib(heapAfter - heapBefore)})`)
