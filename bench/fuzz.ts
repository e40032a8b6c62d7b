/**
 * `npm run fuzz`: the hostile-request model of the test suite
 * (test/helpers/hostile.ts), run for longer. Sends FUZZ_RUNS requests
 * (default 20,000) by inject to one endpoint and prints how many were sent,
 * how many answers were bad (and the first few), the statuses, and memory
 * before and after. Bounded in count; never part of `npm test`.
 *
 *   npm run fuzz
 *   FUZZ_RUNS=200000 FUZZ_SEED=42 npm run fuzz
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import fc from 'fast-check'
import Fastify from 'fastify'
import mcpCapabilities from '../lib/index.js'
import { createFuzzRunner, hostileModule, hostileRequest } from '../test/helpers/hostile.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const RUNS = Number(process.env.FUZZ_RUNS ?? 20_000)
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
const BATCH = 5000
const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1) + ' MB'

function memory (): string {
  gc()
  const m = process.memoryUsage()
  return `heap ${mb(m.heapUsed)}, buffers ${mb(m.arrayBuffers)}, rss ${mb(m.rss)}`
}

const app = Fastify({ logger: false })
await app.register(mcpCapabilities, { server: hostileModule(), serverInfo: { name: 'fuzz', version: '1' }, tasks: true, limits: { clientRequestTimeoutMs: 20 } })
await app.ready()
const runner = createFuzzRunner(app)
console.log(`fuzz: ${RUNS} hostile requests, seed ${SEED}; before: ${memory()}`)
const started = performance.now()
for (let done = 0; done < RUNS; done += BATCH) {
  const count = Math.min(BATCH, RUNS - done)
  for (const request of fc.sample(hostileRequest, { numRuns: count, seed: SEED + done })) await runner.send(request)
  console.log(`  ${done + count} sent, ${runner.tally.bad.length} bad; ${memory()}`)
}
const closing = app.close()
await runner.finish()
await closing
const { sent, bad, late, statuses } = runner.tally
const seconds = (performance.now() - started) / 1000
console.log(`sent ${sent} in ${seconds.toFixed(1)} s (${Math.round(sent / seconds)}/s), ${late} answered after close, ${bad.length} bad answers`)
console.log(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`)
console.log(`after close: ${memory()}`)
for (const line of bad.slice(0, 10)) console.log('  bad: ' + line)
process.exitCode = bad.length === 0 ? 0 : 1
