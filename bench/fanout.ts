/**
 * Fan-out of one change notification to STREAMS (default 2000) open
 * `subscriptions/listen` streams, side by side in one run:
 *
 *   - single: one plugin process holds every stream; `notifyToolsChanged()`
 *     there (the in-memory event bus, the default);
 *   - floor:  a raw `net` server holding the same number of connections
 *             writes the same bytes (the same SSE frame per stream, as an
 *             HTTP chunk) to each socket: what the fan-out cannot beat;
 *   - redis:  two plugin processes sharing one redis-server (RedisEventBus),
 *             the streams split between them; the notify is made on the
 *             first, so half the streams hear it through Redis.
 *
 * Time is from the notify call (server side) to the last stream receiving
 * the notification (client side); both sides read the same monotonic clock.
 * Rounds alternate between the setups (rotating order) so a noisy machine
 * weighs on all of them alike. Run it with `nice`, while nothing else runs if
 * you can:
 *
 *   nice -n 10 npm run bench:fanout
 *   STREAMS=2000 ROUNDS=30 nice -n 10 npm run bench:fanout
 *   LEGACY=1 SETUPS=single,floor nice -n 10 npm run bench:fanout   # legacy GET streams
 */
import { fork, type ChildProcess } from 'node:child_process'
import http from 'node:http'
import net from 'node:net'
import { fileURLToPath } from 'node:url'
import { nextMessage, openLegacyStream, openListenStream } from './listen-client.js'

const STREAMS = Number(process.env.STREAMS ?? 2000)
const ROUNDS = Number(process.env.ROUNDS ?? 30)
/** Connections opened at once: stays under the listen backlog so no SYN is dropped. */
const OPEN_BATCH = 250
const TIMEOUT_MS = 60_000
const PAUSE_MS = 30
/** Which setups to run (comma-separated); default all three. */
const SETUPS = new Set((process.env.SETUPS ?? 'single,floor,redis').split(','))
/** LEGACY=1: legacy GET streams (2025-11-25) on the plugin instead of subscriptions/listen. */
const LEGACY = process.env.LEGACY === '1'
/** The raw floor's port, once known: its streams are always the listen kind. */
let rawPort = -1
const SUBSCRIPTION_ID_META = 'io.modelcontextprotocol/subscriptionId'

type Mode = 'plugin' | 'raw' | 'redis'
type ToServer = { cmd: 'notify' } | { cmd: 'count' } | { cmd: 'close' }
type FromServer =
  | { kind: 'ready', port: number }
  | { kind: 'notified', t0: string, written: number }
  | { kind: 'count', streams: number }
  | { kind: 'closed' }

// ---------------------------------------------------------------------------
// Server side (child processes)

async function runPluginServer (redisUrl: string | undefined): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const { mcpCapabilities } = await import('../lib/index.js')
  const scale = redisUrl === undefined ? {} : await redisOptions(redisUrl)
  const app = Fastify({ logger: false })
  await app.register(mcpCapabilities, {
    server: { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) },
    serverInfo: { name: 'bench-fanout', version: '1.0.0' },
    // Every stream comes from one anonymous caller: allow them all (the defaults cap 100 per caller).
    limits: { listen: { maxStreams: STREAMS, maxStreamsPerCaller: STREAMS, keepAliveMs: 0 } },
    ...scale
  })
  await app.listen({ port: 0, host: '127.0.0.1', backlog: 4096 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  serve(address.port, () => app.mcp.notifyToolsChanged(), () => app.mcp.listenStreams, () => app.close())
}

/** The options that put the plugin on Redis (the `./redis` entry). */
async function redisOptions (url: string): Promise<Record<string, unknown>> {
  const { redisScale } = await import('../lib/redis/index.js')
  return { scale: redisScale({ url, prefix: 'bench-fanout:' }), requestState: { secret: 'bench-fanout-request-state-secret-0123456789' } }
}

/**
 * The floor: a bare TCP server that answers each request with the same
 * status line and headers as the plugin's SSE response and, on notify,
 * writes each socket the same frame the plugin writes, as one HTTP chunk.
 */
async function runRawServer (): Promise<void> {
  const sockets: Array<{ socket: net.Socket, idJson: string }> = []
  const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nx-accel-buffering: no\r\n' +
    'connection: keep-alive\r\ntransfer-encoding: chunked\r\n\r\n'
  const chunk = (text: string): string => Buffer.byteLength(text).toString(16) + '\r\n' + text + '\r\n'
  const frame = (json: string): string => 'data: ' + json + '\n\n'
  const server = net.createServer((socket) => {
    let input = ''
    const onData = (data: Buffer): void => {
      input += data.toString('latin1')
      const end = input.indexOf('\r\n\r\n')
      if (end === -1) return
      const length = Number(/content-length: *(\d+)/i.exec(input.slice(0, end))?.[1] ?? 0)
      if (input.length < end + 4 + length) return
      socket.off('data', onData)
      const body = JSON.parse(input.slice(end + 4, end + 4 + length)) as { id: string | number, params: { notifications: unknown } }
      const idJson = JSON.stringify(body.id)
      socket.write(head + chunk(frame('{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{' +
        JSON.stringify(SUBSCRIPTION_ID_META) + ':' + idJson + '},"notifications":' + JSON.stringify(body.params.notifications) + '}}')))
      const entry = { socket, idJson }
      sockets.push(entry)
      socket.once('close', () => {
        const i = sockets.indexOf(entry)
        if (i !== -1) sockets.splice(i, 1)
      })
    }
    socket.on('data', onData)
    socket.on('error', () => {})
  })
  await new Promise<void>((resolve) => server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, resolve))
  const address = server.address() as net.AddressInfo
  const headText = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{' + JSON.stringify(SUBSCRIPTION_ID_META) + ':'
  serve(address.port, () => {
    for (const { socket, idJson } of sockets) socket.write(chunk(frame(headText + idJson + '}}}')))
    return sockets.length
  }, () => sockets.length, async () => {
    for (const { socket } of sockets) socket.end('0\r\n\r\n')
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
}

function serve (port: number, notify: () => number, count: () => number, close: () => Promise<void>): void {
  const send = (message: FromServer): void => { process.send?.(message) }
  process.on('message', async (message: ToServer) => {
    switch (message.cmd) {
      case 'notify': {
        const t0 = process.hrtime.bigint()
        const written = notify()
        send({ kind: 'notified', t0: String(t0), written })
        break
      }
      case 'count':
        send({ kind: 'count', streams: count() })
        break
      case 'close':
        await close()
        send({ kind: 'closed' })
        process.disconnect()
        break
    }
  })
  send({ kind: 'ready', port })
}

// ---------------------------------------------------------------------------
// Client side (this process)

interface Round { number: number, reached: number, expected: number, done: () => void }

interface Stream {
  received: number
  lastAt: bigint
}

async function openStream (port: number, agent: http.Agent, id: number, round: Round): Promise<Stream> {
  const stream: Stream = { received: 0, lastAt: 0n }
  const handlers = {
    onNotification: (now: bigint) => {
      stream.received++
      stream.lastAt = now
      if (stream.received === round.number && ++round.reached === round.expected) round.done()
    }
  }
  // LEGACY=1: the plugin's streams are legacy standalone GET streams (the raw floor is unchanged).
  if (LEGACY && port !== rawPort) await openLegacyStream(port, agent, handlers)
  else await openListenStream(port, agent, id, handlers)
  return stream
}

async function openMany (port: number, agent: http.Agent, count: number, offset: number, round: Round): Promise<Stream[]> {
  const streams: Stream[] = []
  for (let start = 0; start < count; start += OPEN_BATCH) {
    const batch = Array.from({ length: Math.min(OPEN_BATCH, count - start) }, (_, i) => openStream(port, agent, offset + start + i, round))
    streams.push(...await Promise.all(batch))
  }
  return streams
}

function percentile (sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)
  return sorted[Math.max(0, index)] as number
}

function startChild (mode: Mode, env: Record<string, string> = {}): ChildProcess {
  return fork(fileURLToPath(import.meta.url), ['server', mode], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc']
  })
}

interface Setup {
  name: string
  /** The process whose notify starts a round. */
  notifier: ChildProcess
  children: ChildProcess[]
  streams: Stream[]
  round: Round
  latencies: number[]
}

async function setUp (name: string, children: ChildProcess[], agent: http.Agent): Promise<Setup> {
  const round: Round = { number: 0, reached: 0, expected: STREAMS, done: () => {} }
  const ports = await Promise.all(children.map(async (child) => (await nextMessage<FromServer, 'ready'>(child, 'ready', TIMEOUT_MS)).port))
  if (name === 'floor') rawPort = ports[0] as number
  const streams: Stream[] = []
  // Split the streams evenly between the processes.
  for (const [i, port] of ports.entries()) {
    const share = Math.floor(STREAMS / ports.length) + (i < STREAMS % ports.length ? 1 : 0)
    streams.push(...await openMany(port, agent, share, streams.length, round))
  }
  let held = 0
  for (const child of children) {
    child.send({ cmd: 'count' })
    held += (await nextMessage<FromServer, 'count'>(child, 'count', TIMEOUT_MS)).streams
  }
  if (held !== STREAMS) throw new Error(`${name}: the servers hold ${held} streams, expected ${STREAMS}`)
  return { name, notifier: children[0] as ChildProcess, children, streams, round, latencies: [] }
}

async function measureRound (setup: Setup, number: number): Promise<void> {
  const { round } = setup
  round.number = number
  round.reached = 0
  const allReceived = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${setup.name} round ${number}: ${round.reached}/${STREAMS} streams received`)), TIMEOUT_MS)
    round.done = () => { clearTimeout(timer); resolve() }
  })
  setup.notifier.send({ cmd: 'notify' })
  const notified = await nextMessage<FromServer, 'notified'>(setup.notifier, 'notified', TIMEOUT_MS)
  await allReceived
  const last = setup.streams.reduce((max, s) => (s.lastAt > max ? s.lastAt : max), 0n)
  setup.latencies.push(Number(last - BigInt(notified.t0)) / 1e6)
}

async function runClient (): Promise<void> {
  const { startRedisServer } = await import('../test/helpers/redis-server.js')
  const redis = await startRedisServer()
  const children: ChildProcess[] = []
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity })
  try {
    const setups: Setup[] = []
    if (SETUPS.has('single')) {
      const single = startChild('plugin')
      children.push(single)
      setups.push(await setUp('single', [single], agent))
    }
    if (SETUPS.has('floor')) {
      const floor = startChild('raw')
      children.push(floor)
      setups.push(await setUp('floor', [floor], agent))
    }
    if (SETUPS.has('redis')) {
      const pair = [startChild('redis', { REDIS_URL: redis.url }), startChild('redis', { REDIS_URL: redis.url })]
      children.push(...pair)
      setups.push(await setUp('redis', pair, agent))
    }
    // Warm-up rounds, not recorded.
    for (const setup of setups) {
      await measureRound(setup, 1)
      await measureRound(setup, 2)
      setup.latencies.length = 0
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (let i = 0; i < setups.length; i++) {
        const setup = setups[(r + i) % setups.length] as Setup
        await measureRound(setup, r + 3)
        await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
      }
    }
    for (const setup of setups) {
      if (setup.streams.some((s) => s.received !== ROUNDS + 2)) throw new Error(`${setup.name}: a stream missed or repeated a notification`)
    }

    const none = { median: NaN, p99: NaN, max: NaN }
    const stats: Record<'single' | 'floor' | 'redis', { median: number, p99: number, max: number }> = { single: none, floor: none, redis: none }
    for (const s of setups) {
      const sorted = [...s.latencies].sort((a, b) => a - b)
      stats[s.name as keyof typeof stats] = { median: +percentile(sorted, 50).toFixed(2), p99: +percentile(sorted, 99).toFixed(2), max: +(sorted.at(-1) ?? 0).toFixed(2) }
    }
    const ratio = (a: number, b: number): number => +(a / b).toFixed(2)
    const summary = {
      node: process.version,
      streams: STREAMS,
      rounds: ROUNDS,
      ...stats,
      ratios: {
        singleOverFloorMedian: ratio(stats.single.median, stats.floor.median),
        singleOverFloorP99: ratio(stats.single.p99, stats.floor.p99),
        redisOverSingleP99: ratio(stats.redis.p99, stats.single.p99),
        redisOverSingleMedian: ratio(stats.redis.median, stats.single.median)
      }
    }
    console.log(`${STREAMS} listen streams, ${ROUNDS} rounds each, notify -> last stream (ms):`)
    console.log('| setup | median | p99 | max |')
    console.log('|---|---|---|---|')
    for (const s of setups) console.log(`| ${s.name} | ${stats[s.name as keyof typeof stats].median} | ${stats[s.name as keyof typeof stats].p99} | ${stats[s.name as keyof typeof stats].max} |`)
    console.log(`single / floor: median ${summary.ratios.singleOverFloorMedian}, p99 ${summary.ratios.singleOverFloorP99} (target <= 1.5)`)
    console.log(`redis (2 instances) / single: p99 ${summary.ratios.redisOverSingleP99}, median ${summary.ratios.redisOverSingleMedian} (target p99 <= 1.5)`)
    console.log(JSON.stringify(summary))
  } finally {
    for (const child of children) {
      if (child.connected) {
        child.send({ cmd: 'close' })
        await nextMessage<FromServer, 'closed'>(child, 'closed', TIMEOUT_MS).catch(() => {})
      }
      child.kill()
    }
    agent.destroy()
    await redis.close()
  }
}

if (process.argv[2] === 'server') {
  const mode = process.argv[3] as Mode
  if (mode === 'raw') await runRawServer()
  else await runPluginServer(mode === 'redis' ? process.env.REDIS_URL : undefined)
} else {
  await runClient()
}
