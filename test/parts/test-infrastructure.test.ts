/**
 * The test infrastructure of the multi-instance tests: a real redis-server
 * (started, stopped and restarted on its port) and the round-robin balancer.
 */
import http from 'node:http'
import t from 'tap'
import { startBalancer } from '../helpers/balancer.js'
import { ping, redisServerBinary, startRedisServer } from '../helpers/redis-server.js'

t.test('redis-server: starts on a loopback port, stops, restarts on the same port', async (t) => {
  const redis = await startRedisServer()
  t.teardown(redis.close)
  t.match(redis.url, /^redis:\/\/127\.0\.0\.1:\d+$/)
  t.equal(await ping(redis.port), true, 'answers PING')
  await redis.stop()
  t.equal(redis.running, false)
  t.equal(await ping(redis.port), false, 'nothing answers once stopped')
  await redis.restart()
  t.equal(redis.running, true)
  t.equal(await ping(redis.port), true, 'answers again on the same port')
})

t.test('redis-server: a missing binary is a clear error, not a skip', async (t) => {
  const saved = process.env.REDIS_SERVER
  process.env.REDIS_SERVER = '/nonexistent/redis-server'
  t.teardown(() => {
    if (saved === undefined) delete process.env.REDIS_SERVER
    else process.env.REDIS_SERVER = saved
  })
  t.throws(() => redisServerBinary(), /does not exist/)
  const savedPath = process.env.PATH
  delete process.env.REDIS_SERVER
  process.env.PATH = '/nonexistent'
  try {
    t.throws(() => redisServerBinary(), /redis-server was not found on PATH.*apt-get install -y redis-server/)
  } finally {
    process.env.PATH = savedPath
  }
})

async function upstream (name: string): Promise<{ origin: string, close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${name}\n\n`)
      req.on('close', () => res.end())
      return
    }
    let body = ''
    req.on('data', (chunk: Buffer) => { body += chunk.toString() })
    req.on('end', () => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': name })
      res.end(JSON.stringify({ name, method: req.method, url: req.url, body, auth: req.headers.authorization }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const { port } = server.address() as { port: number }
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  }
}

t.test('balancer: round robin, bodies and headers through, streams proxied as they arrive', async (t) => {
  const a = await upstream('a')
  const b = await upstream('b')
  const c = await upstream('c')
  t.teardown(async () => { await a.close(); await b.close(); await c.close() })
  const balancer = await startBalancer({ upstreams: [a.origin, b.origin, c.origin] })
  t.teardown(balancer.close)

  const names: string[] = []
  for (let i = 0; i < 6; i++) {
    const res = await fetch(`${balancer.origin}/mcp?x=${i}`, { method: 'POST', body: `body-${i}`, headers: { authorization: 'Bearer t' } })
    t.equal(res.status, 201)
    const json = await res.json() as { name: string, url: string, body: string, auth: string }
    t.same({ url: json.url, body: json.body, auth: json.auth }, { url: `/mcp?x=${i}`, body: `body-${i}`, auth: 'Bearer t' })
    t.equal(res.headers.get('x-upstream'), json.name)
    names.push(json.name)
  }
  t.same(names, ['a', 'b', 'c', 'a', 'b', 'c'], 'each request goes to the next upstream')
  t.same(balancer.hits, [2, 2, 2])

  // The SSE stream stays open upstream; its first event must arrive before any end.
  const controller = new AbortController()
  const res = await fetch(`${balancer.origin}/stream`, { signal: controller.signal })
  const reader = res.body!.getReader()
  const first = await reader.read()
  t.match(Buffer.from(first.value!).toString(), /^data: a\n\n/, 'the first event arrives while the stream is open')
  controller.abort()
})

t.test('balancer: an unreachable upstream answers 502 with a JSON-RPC error', async (t) => {
  const gone = await upstream('gone')
  await gone.close()
  const balancer = await startBalancer({ upstreams: [gone.origin] })
  t.teardown(balancer.close)
  const res = await fetch(`${balancer.origin}/mcp`, { method: 'POST', body: '{}' })
  t.equal(res.status, 502)
  t.match(await res.json(), { jsonrpc: '2.0', error: { code: -32603, message: /Bad gateway/ } })
})
