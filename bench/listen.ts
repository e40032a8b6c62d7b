/**
 * subscriptions/listen at scale: opens STREAMS (default 2000) concurrent
 * listen streams against one server process on 127.0.0.1 and reports
 *
 *   - the server's memory per open stream (RSS and heap delta / STREAMS,
 *     both measured after a forced GC), and
 *   - the time from `fastify.mcp.notifyToolsChanged()` to the last stream
 *     receiving the notification, median and p99 over ROUNDS (default 20).
 *
 * The server runs in a child process (so its memory is its own); this
 * process holds the client sockets. Both read the same monotonic clock.
 *
 *   npx tsx bench/listen.ts
 *   STREAMS=5000 ROUNDS=50 KEEP_ALIVE_MS=15000 npx tsx bench/listen.ts
 */
import { fork } from 'node:child_process'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { nextMessage, openListenStream } from './listen-client.js'

const STREAMS = Number(process.env.STREAMS ?? 2000)
const ROUNDS = Number(process.env.ROUNDS ?? 20)
const KEEP_ALIVE_MS = Number(process.env.KEEP_ALIVE_MS ?? 15_000)
/** Connections opened at once: stays under the listen backlog so no SYN is dropped. */
const OPEN_BATCH = 250
const WARMUP_STREAMS = 100
const TIMEOUT_MS = 60_000

type ToServer = { cmd: 'measure' } | { cmd: 'notify' } | { cmd: 'close' }
type FromServer =
  | { kind: 'ready', port: number }
  | { kind: 'memory', rss: number, heapUsed: number, external: number, streams: number }
  | { kind: 'notified', t0: string, fanOutNs: string, written: number }
  | { kind: 'closed', ms: number, streams: number }

// ---------------------------------------------------------------------------
// Server side (child process)

async function runServer (): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const { mcpCapabilities } = await import('../lib/index.js')
  const app = Fastify({ logger: false })
  await app.register(mcpCapabilities, {
    server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) },
    serverInfo: { name: 'bench-listen', version: '1.0.0' },
    // Every bench client is the same anonymous caller: raise the per-caller and total bounds.
    limits: { listen: { maxStreams: STREAMS, maxStreamsPerCaller: STREAMS, keepAliveMs: KEEP_ALIVE_MS } }
  })
  await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  const send = (message: FromServer): void => { process.send?.(message) }
  const gc = (globalThis as { gc?: () => void }).gc

  process.on('message', async (message: ToServer) => {
    switch (message.cmd) {
      case 'measure': {
        for (let i = 0; i < 3; i++) gc?.()
        const usage = process.memoryUsage()
        send({ kind: 'memory', rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external, streams: app.mcp.listenStreams })
        break
      }
      case 'notify': {
        const t0 = process.hrtime.bigint()
        const written = app.mcp.notifyToolsChanged()
        const fanOutNs = process.hrtime.bigint() - t0
        send({ kind: 'notified', t0: String(t0), fanOutNs: String(fanOutNs), written })
        break
      }
      case 'close': {
        const started = performance.now()
        await app.close()
        send({ kind: 'closed', ms: performance.now() - started, streams: app.mcp.listenStreams })
        process.disconnect()
        break
      }
    }
  })
  send({ kind: 'ready', port: address.port })
}

// ---------------------------------------------------------------------------
// Client side (this process)

/** Streams that have received the current round's notification; wakes the waiter when all have. */
const round = { number: 0, reached: 0, done: (): void => {} }

interface Stream {
  res: http.IncomingMessage | undefined
  req: http.ClientRequest | undefined
  /** Notifications received, and when the latest arrived (monotonic ns). */
  received: number
  lastAt: bigint
  acked: boolean
  ended: boolean
  sawFinal: boolean
}

async function openStream (port: number, agent: http.Agent, id: number): Promise<Stream> {
  const stream: Stream = { res: undefined, req: undefined, received: 0, lastAt: 0n, acked: false, ended: false, sawFinal: false }
  const opened = await openListenStream(port, agent, id, {
    onNotification: (now) => {
      stream.received++
      stream.lastAt = now
      if (stream.received === round.number && ++round.reached === STREAMS) round.done()
    },
    onFinal: () => { stream.sawFinal = true },
    onEnd: () => { stream.ended = true }
  })
  stream.req = opened.req
  stream.res = opened.res
  stream.acked = true
  return stream
}

async function waitFor (condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + TIMEOUT_MS
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

function percentile (sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  return sorted[Math.max(0, index)] as number
}

async function openMany (port: number, agent: http.Agent, count: number, offset: number): Promise<Stream[]> {
  const streams: Stream[] = []
  for (let start = 0; start < count; start += OPEN_BATCH) {
    const batch = Array.from({ length: Math.min(OPEN_BATCH, count - start) }, (_, i) => openStream(port, agent, offset + start + i))
    streams.push(...await Promise.all(batch))
  }
  return streams
}

async function runClient (): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['server'], {
    execArgv: ['--expose-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
  const send = (message: ToServer): void => { child.send(message) }
  try {
    const { port } = await nextMessage<FromServer, 'ready'>(child, 'ready', TIMEOUT_MS)
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })

    // Warm-up: JIT and allocator settle before the baseline is taken.
    const warm = await openMany(port, agent, WARMUP_STREAMS, -WARMUP_STREAMS)
    for (const s of warm) s.req?.destroy()
    send({ cmd: 'measure' })
    let baseline = await nextMessage<FromServer, 'memory'>(child, 'memory', TIMEOUT_MS)
    for (let i = 0; i < 50 && baseline.streams > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      send({ cmd: 'measure' })
      baseline = await nextMessage<FromServer, 'memory'>(child, 'memory', TIMEOUT_MS)
    }

    const openStarted = performance.now()
    const streams = await openMany(port, agent, STREAMS, 0)
    const openMs = performance.now() - openStarted
    send({ cmd: 'measure' })
    const loaded = await nextMessage<FromServer, 'memory'>(child, 'memory', TIMEOUT_MS)
    if (loaded.streams !== STREAMS) throw new Error(`server holds ${loaded.streams} streams, expected ${STREAMS}`)

    const latencies: number[] = []
    const fanOuts: number[] = []
    for (let r = 1; r <= ROUNDS; r++) {
      round.number = r
      round.reached = 0
      const allReceived = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`round ${r}: ${round.reached}/${STREAMS} streams received`)), TIMEOUT_MS)
        round.done = () => { clearTimeout(timer); resolve() }
      })
      send({ cmd: 'notify' })
      const notified = await nextMessage<FromServer, 'notified'>(child, 'notified', TIMEOUT_MS)
      if (notified.written !== STREAMS) throw new Error(`notify reached ${notified.written} streams, expected ${STREAMS}`)
      await allReceived
      const last = streams.reduce((max, s) => (s.lastAt > max ? s.lastAt : max), 0n)
      latencies.push(Number(last - BigInt(notified.t0)) / 1e6)
      fanOuts.push(Number(notified.fanOutNs) / 1e6)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    send({ cmd: 'close' })
    const closed = await nextMessage<FromServer, 'closed'>(child, 'closed', TIMEOUT_MS)
    await waitFor(() => streams.every((s) => s.ended), 'streams to end')
    if (streams.some((s) => s.received !== ROUNDS)) throw new Error('a stream received a notification more than once')
    const graceful = streams.filter((s) => s.sawFinal).length
    agent.destroy()

    const sorted = [...latencies].sort((a, b) => a - b)
    const sortedFanOut = [...fanOuts].sort((a, b) => a - b)
    const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1)
    const perStream = (delta: number): number => Math.round(delta / STREAMS)
    const summary = {
      node: process.version,
      streams: STREAMS,
      rounds: ROUNDS,
      openMs: Math.round(openMs),
      rssPerStreamBytes: perStream(loaded.rss - baseline.rss),
      heapPerStreamBytes: perStream(loaded.heapUsed - baseline.heapUsed),
      externalPerStreamBytes: perStream(loaded.external - baseline.external),
      notifyToLastMs: { median: +percentile(sorted, 50).toFixed(2), p99: +percentile(sorted, 99).toFixed(2), max: +sorted.at(-1)!.toFixed(2) },
      notifyCallMs: { median: +percentile(sortedFanOut, 50).toFixed(2), p99: +percentile(sortedFanOut, 99).toFixed(2) },
      closeMs: Math.round(closed.ms),
      gracefulCloses: graceful,
      streamsLeft: closed.streams
    }
    console.log(`listen streams: ${STREAMS} open in ${summary.openMs} ms`)
    console.log(`server memory:  RSS ${mib(baseline.rss)} -> ${mib(loaded.rss)} MiB, heap ${mib(baseline.heapUsed)} -> ${mib(loaded.heapUsed)} MiB`)
    console.log(`per stream:     RSS ${(summary.rssPerStreamBytes / 1024).toFixed(1)} KiB, heap ${(summary.heapPerStreamBytes / 1024).toFixed(1)} KiB`)
    console.log(`notify -> last stream (${ROUNDS} rounds): median ${summary.notifyToLastMs.median} ms, p99 ${summary.notifyToLastMs.p99} ms`)
    console.log(`notifyToolsChanged() call itself: median ${summary.notifyCallMs.median} ms`)
    console.log(`app.close(): ${summary.closeMs} ms, ${graceful}/${STREAMS} streams got the final complete response, ${closed.streams} left`)
    console.log(JSON.stringify(summary))
  } finally {
    if (child.connected) child.kill()
  }
}

if (process.argv[2] === 'server') await runServer()
else await runClient()
