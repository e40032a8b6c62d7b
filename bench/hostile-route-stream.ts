/**
 * What a route-backed tool holds for a large streamed answer under its cap
 * (issue 36, noticed beside item 12): the route streams `MIB` MiB of text in
 * 64 KiB chunks under `routes.maxResponseBytes` of `CAP_MIB` MiB; the tool
 * reads it as a stream (cut at the cap), but an answer within the cap is
 * kept whole (its chunks, the joined buffer, its text, the tool result and
 * its serialised answer) until the call is answered. Reported: the heap and
 * RSS growth at the peak of one call and of `CONCURRENT` calls at once (a
 * 20 ms sampler; the peak is a lower bound), the heap after the answers
 * (settled), and the longest event-loop stall. Run by `npm run
 * bench:hostile` after the other scenarios, or alone:
 *
 *   npx tsx bench/hostile-route-stream.ts
 *   MIB=8 CAP_MIB=16 CONCURRENT=8 npx tsx bench/hostile-route-stream.ts
 */
import Fastify from 'fastify'
import { Readable } from 'node:stream'
import mcpCapabilities from '../lib/index.js'
import { settledHeap } from './settled-heap.js'
import { againstGoal, startStallMeter } from './stall-goal.js'

const MIB = Number(process.env.MIB ?? 24)
const CAP_MIB = Number(process.env.CAP_MIB ?? 32)
const CONCURRENT = Number(process.env.CONCURRENT ?? 4)
const CHUNK = 64 * 1024

/** The answer as a few words (its parsed body is let go on return). */
function describeAnswer (raw: string | undefined): string {
  const body = JSON.parse(raw ?? '{}')
  const text = body.result?.content?.[0]?.text
  return typeof text === 'string' ? `${body.result.isError === true ? 'tool error' : 'text'} of ${(text.length / 1024 / 1024).toFixed(1)} MiB` : 'BAD ANSWER'
}

export async function routeStreamMemory (): Promise<void> {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: {}, serverInfo: { name: 'route-stream', version: '1' }, routes: { maxResponseBytes: CAP_MIB * 1024 * 1024 } })
  app.get('/feed', { config: { mcp: { name: 'feed' } } }, async (_request, reply) => {
    let sent = 0
    const chunk = Buffer.alloc(CHUNK, 'x')
    const source = new Readable({
      read () {
        if (sent >= MIB * 1024 * 1024) return this.push(null)
        sent += CHUNK
        this.push(chunk)
      }
    })
    return reply.type('text/plain').send(source)
  })
  await app.ready()
  const call = () => app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'feed', arguments: {} } })
  })
  await call() // warmed: the figures are the answer's, not the first call's compiling
  console.log(`\nroute tool streaming ${MIB} MiB under routes.maxResponseBytes ${CAP_MIB} MiB, growth over the settled heap`)
  console.log('case'.padEnd(32), 'peak heap MiB', ' peak RSS MiB', ' after MiB', ' loop blocked ms', ' goal', ' answer')
  for (const calls of [1, CONCURRENT]) {
    const before = await settledHeap()
    const rssBefore = process.memoryUsage().rss
    let peak = 0
    let rssPeak = 0
    const stopMeter = startStallMeter()
    const sampler = setInterval(() => {
      const usage = process.memoryUsage()
      peak = Math.max(peak, usage.heapUsed + usage.arrayBuffers)
      rssPeak = Math.max(rssPeak, usage.rss)
    }, 20)
    const replies = await Promise.all(Array.from({ length: calls }, call))
    const blocked = stopMeter()
    clearInterval(sampler)
    const usage = process.memoryUsage()
    peak = Math.max(peak, usage.heapUsed + usage.arrayBuffers)
    rssPeak = Math.max(rssPeak, usage.rss)
    const answer = describeAnswer(replies[0]?.body)
    replies.length = 0 // the answers are let go before the settled heap is read
    const after = await settledHeap()
    const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)
    console.log(`${calls} call${calls === 1 ? '' : 's'} at once`.padEnd(32), mib(peak - before).padStart(13), mib(rssPeak - rssBefore).padStart(13), mib(after - before).padStart(10),
      blocked.toFixed(0).padStart(16), againstGoal(blocked).padStart(5), ' ', answer)
  }
  await app.close()
}

if (import.meta.url === `file://${process.argv[1]}`) await routeStreamMemory()
