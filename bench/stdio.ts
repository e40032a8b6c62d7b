/**
 * What stdio costs next to HTTP, side by side in one process: the same app
 * (one defined tool) answers modern `tools/call` round trips, one at a time,
 * over Streamable HTTP on 127.0.0.1 (fetch, keep-alive) and over
 * `serveStdio` on a pair of in-process streams (each message a line, each
 * answer awaited before the next request). Rounds alternate; the median
 * wall time and CPU per round trip of each are kept, with the ratio
 * stdio / HTTP. Then a burst: 10,000 requests written at once, the answers
 * read as they come, with the heap sampled every 5 ms (peak and after).
 *
 *   tsx bench/stdio.ts [--rounds 5] [--requests 2000] [--burst 10000]
 */
import { PassThrough } from 'node:stream'
import { parseArgs } from 'node:util'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { defineTools, serveStdio } from '../lib/index.js'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    requests: { type: 'string', default: '2000' },
    burst: { type: 'string', default: '10000' }
  }
})
const ROUNDS = Number(values.rounds)
const REQUESTS = Number(values.requests)
const BURST = Number(values.burst)

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

async function build (): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(mcpCapabilities, {
    server: defineTools({
      add: {
        description: 'Adds two numbers',
        input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        handler: ({ a, b }) => `${Number(a) + Number(b)}`
      }
    }),
    serverInfo: { name: 'bench-stdio', version: '1.0.0' }
  })
  return app
}

function call (id: number): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: { a: id, b: 1 }, _meta: META } })
}

interface Sample { wallNs: number, cpuUs: number }

async function measure (roundTrips: (n: number) => Promise<void>): Promise<Sample> {
  const cpu = process.cpuUsage()
  const start = process.hrtime.bigint()
  await roundTrips(REQUESTS)
  const wall = Number(process.hrtime.bigint() - start)
  const used = process.cpuUsage(cpu)
  return { wallNs: wall / REQUESTS, cpuUs: (used.user + used.system) / REQUESTS }
}

async function httpScenario (): Promise<{ run: (n: number) => Promise<void>, close: () => Promise<void> }> {
  const app = await build()
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const url = `${address}/mcp`
  let id = 0
  return {
    async run (n) {
      for (let i = 0; i < n; i++) {
        id++
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'add' },
          body: call(id)
        })
        const answer = await response.json() as { id?: number }
        if (answer.id !== id) throw new Error(`HTTP: unexpected answer ${JSON.stringify(answer)}`)
      }
    },
    close: () => app.close()
  }
}

async function stdioScenario (): Promise<{ run: (n: number) => Promise<void>, close: () => Promise<void>, input: PassThrough, output: PassThrough }> {
  const app = await build()
  const input = new PassThrough()
  const output = new PassThrough()
  const server = await serveStdio(app, { input, output })
  let buffered = ''
  let waiting: ((line: string) => void) | undefined
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    let newline
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline)
      buffered = buffered.slice(newline + 1)
      waiting?.(line)
    }
  })
  let id = 0
  return {
    input,
    output,
    async run (n) {
      for (let i = 0; i < n; i++) {
        id++
        const line = await new Promise<string>((resolve) => {
          waiting = resolve
          input.write(call(id) + '\n')
        })
        if ((JSON.parse(line) as { id?: number }).id !== id) throw new Error(`stdio: unexpected answer ${line}`)
      }
    },
    close: () => server.close()
  }
}

function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

const http = await httpScenario()
const stdio = await stdioScenario()
// Warm-up: JIT, the connection pool, the first-call paths.
await http.run(300)
await stdio.run(300)
const samples = { http: [] as Sample[], stdio: [] as Sample[] }
for (let round = 0; round < ROUNDS; round++) {
  samples.http.push(await measure(http.run))
  samples.stdio.push(await measure(stdio.run))
}
await http.close()
const wall = { http: median(samples.http.map((s) => s.wallNs)), stdio: median(samples.stdio.map((s) => s.wallNs)) }
const cpu = { http: median(samples.http.map((s) => s.cpuUs)), stdio: median(samples.stdio.map((s) => s.cpuUs)) }
console.log(`tools/call round trip, one at a time (${ROUNDS} rounds x ${REQUESTS}, medians; client and server in this process)`)
console.log(`  HTTP (127.0.0.1, fetch):   ${(wall.http / 1000).toFixed(1)} µs wall, ${cpu.http.toFixed(1)} µs CPU`)
console.log(`  stdio (serveStdio):        ${(wall.stdio / 1000).toFixed(1)} µs wall, ${cpu.stdio.toFixed(1)} µs CPU`)
console.log(`  ratio stdio / HTTP:        ${(wall.stdio / wall.http).toFixed(2)}x wall, ${(cpu.stdio / cpu.http).toFixed(2)}x CPU`)
await stdio.close()

// The burst: every request written before the first answer is read.
const burst = await stdioScenario()
globalThis.gc?.()
const before = process.memoryUsage().heapUsed
let peak = before
const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().heapUsed) }, 5)
let answered = 0
burst.output.on('data', (chunk: Buffer) => {
  for (const byte of chunk) if (byte === 10) answered++
})
const started = process.hrtime.bigint()
let text = ''
for (let id = 1; id <= BURST; id++) text += call(id) + '\n'
burst.input.write(text)
text = ''
// `answered` grows in the output listener above.
// eslint-disable-next-line no-unmodified-loop-condition
while (answered < BURST) await new Promise((resolve) => setTimeout(resolve, 5))
const ms = Number(process.hrtime.bigint() - started) / 1e6
clearInterval(sampler)
peak = Math.max(peak, process.memoryUsage().heapUsed)
await burst.close()
globalThis.gc?.()
const after = process.memoryUsage().heapUsed
const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`
console.log(`burst of ${BURST} tools/call written at once (${mib(Buffer.byteLength(call(1)) * BURST)} of input): all answered in ${ms.toFixed(0)} ms`)
console.log(`  heap: ${mib(before)} before, ${mib(peak)} at the peak (+${mib(peak - before)}), ${mib(after)} after`)
