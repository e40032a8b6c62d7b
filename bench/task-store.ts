/**
 * Task create/get cost: the Redis task store against the memory store, side
 * by side in one run, with ratios.
 *
 *   - store level: `create` then `get` of OPS tasks, one at a time (latency)
 *     and CONCURRENCY at a time (throughput), against each store;
 *   - endpoint level: a `tools/call` that creates a task and a `tasks/get`
 *     of it, through `fastify.inject`, against an endpoint on each store.
 *
 * Redis is a redis-server started here on a free 127.0.0.1 port (persistence
 * off) and stopped at the end. Each case runs ROUNDS times on a fresh store;
 * the median round is reported, after one untimed warm-up round of each.
 *
 *   nice -n 10 npx tsx bench/task-store.ts
 *   OPS=5000 ROUNDS=5 CONCURRENCY=64 nice -n 10 npx tsx bench/task-store.ts
 */
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import { mcpCapabilities, runAsTask, TASKS_EXTENSION } from '../lib/index.js'
import { redisTaskStore } from '../lib/redis/redis-task-store.js'
import { MemoryTaskStore, type TaskLimits, type TaskStore } from '../lib/parts/task-store.js'
import { startRedisServer } from '../test/helpers/redis-server.js'

const OPS = Number(process.env.OPS ?? 5000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32)
const HTTP_OPS = Number(process.env.HTTP_OPS ?? 1000)
const OWNERS = 64

const LIMITS: TaskLimits = {
  ttlMs: 10 * 60_000,
  pollIntervalMs: 1000,
  maxTasks: 1_000_000,
  maxTasksPerOwner: 1_000_000,
  maxTaskBytes: 1024 * 1024,
  maxStoredBytes: 1024 * 1024 * 1024
}

interface Figures {
  createUs: number
  getUs: number
  createPerSec: number
  getPerSec: number
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

async function storeRound (store: TaskStore): Promise<Figures> {
  const ids: Array<[string, string]> = []
  // One at a time: the cost of one operation, round trip included.
  let t0 = process.hrtime.bigint()
  for (let i = 0; i < OPS; i++) {
    const owner = `owner-${i % OWNERS}`
    const made = await store.create(owner)
    if (!made.ok) throw new Error(`create refused: ${made.reason}`)
    ids.push([made.task.taskId, owner])
  }
  const createUs = Number(process.hrtime.bigint() - t0) / 1000 / OPS
  t0 = process.hrtime.bigint()
  for (const [id, owner] of ids) {
    if (await store.get(id, owner) === undefined) throw new Error('lost a task')
  }
  const getUs = Number(process.hrtime.bigint() - t0) / 1000 / OPS
  // CONCURRENCY at a time: throughput.
  let next = 0
  t0 = process.hrtime.bigint()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < OPS) {
      const i = next++
      const made = await store.create(`owner-${i % OWNERS}`)
      if (!made.ok) throw new Error(`create refused: ${made.reason}`)
    }
  }))
  const createPerSec = OPS / (Number(process.hrtime.bigint() - t0) / 1e9)
  next = 0
  t0 = process.hrtime.bigint()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < ids.length) {
      const [id, owner] = ids[next++] as [string, string]
      if (await store.get(id, owner) === undefined) throw new Error('lost a task')
    }
  }))
  const getPerSec = ids.length / (Number(process.hrtime.bigint() - t0) / 1e9)
  return { createUs, getUs, createPerSec, getPerSec }
}

const HEADERS = (method: string, name?: string): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': method,
  ...(name !== undefined && { 'mcp-name': name })
})
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } }
}

async function endpointRound (store: ((limits: TaskLimits) => TaskStore) | undefined): Promise<{ callUs: number, getUs: number }> {
  const app = Fastify({ logger: false })
  await app.register(mcpCapabilities, {
    server: {
      listTools: () => ({ tools: [{ name: 'job', inputSchema: { type: 'object' } }] }),
      callTool: (_params: unknown, ctx: never) => runAsTask(ctx, () => new Promise(() => {}))
    },
    serverInfo: { name: 'bench-tasks', version: '1.0.0' },
    tasks: { ...LIMITS },
    ...(store !== undefined && {
      scale: { taskStore: store },
      // A shared store needs the shared requestState secret (FST_MCP_REQUEST_STATE_SECRET_REQUIRED otherwise).
      requestState: { secret: 'bench-task-store-request-state-secret-0123456789' }
    })
  } as never)
  const ids: string[] = []
  let t0 = process.hrtime.bigint()
  for (let i = 0; i < HTTP_OPS; i++) {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: HEADERS('tools/call', 'job'),
      payload: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'job', arguments: {}, _meta: META } })
    })
    const taskId = JSON.parse(response.body).result?.taskId
    if (typeof taskId !== 'string') throw new Error(`no task: ${response.body}`)
    ids.push(taskId)
  }
  const callUs = Number(process.hrtime.bigint() - t0) / 1000 / HTTP_OPS
  t0 = process.hrtime.bigint()
  for (const taskId of ids) {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: HEADERS('tasks/get', taskId),
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId, _meta: META } })
    })
    if (response.statusCode !== 200) throw new Error(`tasks/get: ${response.body}`)
  }
  const getUs = Number(process.hrtime.bigint() - t0) / 1000 / HTTP_OPS
  await app.close()
  return { callUs, getUs }
}

function row (name: string, memory: number, redis: number, unit: string, lowerIsBetter: boolean): string {
  const ratio = lowerIsBetter ? redis / memory : memory / redis
  return `| ${name} | ${memory.toFixed(unit === 'ops/s' ? 0 : 1)} ${unit} | ${redis.toFixed(unit === 'ops/s' ? 0 : 1)} ${unit} | ${ratio.toFixed(1)}x |`
}

async function main (): Promise<void> {
  const server = await startRedisServer()
  const client = new Redis(server.url, { maxRetriesPerRequest: 1 })
  try {
    let round = 0
    const memory: Figures[] = []
    const redis: Figures[] = []
    const memoryHttp: Array<{ callUs: number, getUs: number }> = []
    const redisHttp: Array<{ callUs: number, getUs: number }> = []
    // Warm-up (not reported): both paths compiled before anything is timed.
    await storeRound(new MemoryTaskStore(LIMITS))
    await storeRound(redisTaskStore({ client, prefix: 'warm:' })(LIMITS))
    await endpointRound(undefined)
    await endpointRound(redisTaskStore({ client, prefix: 'warmhttp:' }))
    await client.flushall()
    for (let r = 0; r < ROUNDS; r++) {
      memory.push(await storeRound(new MemoryTaskStore(LIMITS)))
      redis.push(await storeRound(redisTaskStore({ client, prefix: `bench${++round}:` })(LIMITS)))
      memoryHttp.push(await endpointRound(undefined))
      redisHttp.push(await endpointRound(redisTaskStore({ client, prefix: `benchhttp${round}:` })))
      await client.flushall()
    }
    const m = (list: Figures[], key: keyof Figures): number => median(list.map((f) => f[key]))
    const h = (list: Array<{ callUs: number, getUs: number }>, key: 'callUs' | 'getUs'): number => median(list.map((f) => f[key]))
    console.log(`task store: OPS=${OPS} CONCURRENCY=${CONCURRENCY} HTTP_OPS=${HTTP_OPS}, median of ${ROUNDS} rounds, Node ${process.version}`)
    console.log('| case | memory | Redis | Redis cost |')
    console.log('|---|---|---|---|')
    console.log(row('store create, one at a time', m(memory, 'createUs'), m(redis, 'createUs'), 'µs', true))
    console.log(row('store get, one at a time', m(memory, 'getUs'), m(redis, 'getUs'), 'µs', true))
    console.log(row(`store create, ${CONCURRENCY} at a time`, m(memory, 'createPerSec'), m(redis, 'createPerSec'), 'ops/s', false))
    console.log(row(`store get, ${CONCURRENCY} at a time`, m(memory, 'getPerSec'), m(redis, 'getPerSec'), 'ops/s', false))
    console.log(row('endpoint tools/call creating a task (inject)', h(memoryHttp, 'callUs'), h(redisHttp, 'callUs'), 'µs', true))
    console.log(row('endpoint tasks/get (inject)', h(memoryHttp, 'getUs'), h(redisHttp, 'getUs'), 'µs', true))
  } finally {
    client.disconnect()
    await server.close()
  }
}

await main()
