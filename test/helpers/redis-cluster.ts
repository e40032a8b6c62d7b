/**
 * A real Redis Cluster for tests: three `redis-server --cluster-enabled yes`
 * masters (no replicas, to stay light) on free 127.0.0.1 ports, joined with
 * `redis-cli --cluster create`, ready once every node reports
 * `cluster_state:ok`. Start it once per test file: it takes about a second.
 *
 * `stop()` and `restart()` take the whole cluster away and bring it back on
 * the same ports (the nodes keep their cluster configuration, not their data),
 * which is how the fault tests cut Redis away from a running endpoint.
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { type RedisServer, redisServerBinary, startRedisServer } from './redis-server.js'

const run = promisify(execFile)
const HOST = '127.0.0.1'
const READY_TIMEOUT_MS = 20_000

export interface RedisCluster {
  /** `redis://127.0.0.1:<port>` of every master. */
  readonly urls: string[]
  readonly nodes: RedisServer[]
  /** Stops every node (their data is gone; their cluster configuration stays). */
  stop (): Promise<void>
  /** Starts every node again on its port; resolves once the cluster is ok. */
  restart (): Promise<void>
  close (): Promise<void>
}

/** redis-cli next to redis-server (or on PATH). */
function redisCliBinary (): string {
  const beside = join(dirname(redisServerBinary()), 'redis-cli')
  if (existsSync(beside)) return beside
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir !== '' && existsSync(join(dir, 'redis-cli'))) return join(dir, 'redis-cli')
  }
  throw new Error('redis-cli was not found (it comes with the redis-server package; apt-get install -y redis-tools)')
}

/** One inline command over a raw socket; resolves with the raw reply text. */
function command (port: number, line: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: HOST, port })
    let answer = ''
    const done = (): void => {
      clearTimeout(timer)
      socket.destroy()
      resolve(answer)
    }
    const timer = setTimeout(done, timeoutMs)
    socket.on('connect', () => socket.write(line + '\r\n'))
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1')
      // A bulk reply ($<n>\r\n<n bytes>\r\n) or a one-line reply is complete here.
      const bulk = /^\$(\d+)\r\n/.exec(answer)
      if (bulk !== null ? answer.length >= bulk[0].length + Number(bulk[1]) + 2 : answer.includes('\r\n')) done()
    })
    socket.on('error', done)
  })
}

async function waitClusterOk (nodes: RedisServer[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS
  for (;;) {
    const infos = await Promise.all(nodes.map((node) => command(node.port, 'CLUSTER INFO')))
    if (infos.every((info) => info.includes('cluster_state:ok'))) return
    if (Date.now() > deadline) throw new Error(`the test cluster did not reach cluster_state:ok within ${READY_TIMEOUT_MS} ms:\n${infos.join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Starts `masters` cluster-enabled nodes (default 3) and joins them into one cluster. */
export async function startRedisCluster (masters = 3): Promise<RedisCluster> {
  const cli = redisCliBinary()
  const dir = mkdtempSync(join(tmpdir(), 'mcp-redis-cluster-'))
  const nodes: RedisServer[] = []
  try {
    for (let i = 0; i < masters; i++) {
      nodes.push(await startRedisServer({
        // The cluster bus port defaults to port + 10000, which may be taken or out of range: give it its own.
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${i}.conf`), '--cluster-node-timeout', '2000'],
        clusterBusPort: true
      }))
    }
    await run(cli, ['--cluster', 'create', ...nodes.map((node) => `${HOST}:${node.port}`), '--cluster-replicas', '0', '--cluster-yes'],
      { timeout: READY_TIMEOUT_MS })
    await waitClusterOk(nodes)
  } catch (err) {
    await Promise.all(nodes.map((node) => node.close()))
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  return {
    urls: nodes.map((node) => node.url),
    nodes,
    async stop () {
      await Promise.all(nodes.map((node) => node.stop()))
    },
    async restart () {
      await Promise.all(nodes.map((node) => node.restart()))
      await waitClusterOk(nodes)
    },
    async close () {
      await Promise.all(nodes.map((node) => node.close()))
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
