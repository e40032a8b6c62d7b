/**
 * The `./redis` entry: its exports, its place in the package's exports map,
 * and that only it loads ioredis (an optional peer dependency): importing the
 * main entry must not, so users without Redis need not install it.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { REPO_ROOT } from '../helpers/paths.js'

/** Imports `entry` in a fresh Node process and says whether any ioredis module got loaded. */
function loadsIoredis (entry: string): boolean {
  const script = `
    import { createRequire } from 'node:module'
    await import(${JSON.stringify(join(REPO_ROOT, entry))})
    const cache = Object.keys(createRequire(import.meta.url).cache)
    console.log(JSON.stringify(cache.some((file) => file.includes('/node_modules/ioredis/'))))
  `
  const env = { ...process.env }
  delete env.NODE_OPTIONS
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 })
  if (run.status !== 0) throw new Error(`node exited with ${run.status}: ${run.stderr}`)
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? 'null') as boolean
}

t.test('importing the main entry does not load ioredis; the redis entry does', async (t) => {
  t.equal(loadsIoredis('lib/index.ts'), false, 'main entry: ioredis not loaded')
  t.equal(loadsIoredis('lib/redis/index.ts'), true, 'redis entry: ioredis loaded (the check can see it)')
})

t.test('the redis entry exports the parts and redisScale', async (t) => {
  const entry = await import('../../lib/redis/index.js')
  for (const name of ['redisScale', 'RedisEventBus', 'RedisAnswerRouter', 'RedisConnection', 'RedisUnavailableError']) {
    t.type(entry[name as keyof typeof entry], 'function', name)
  }
  const scale = entry.redisScale({ url: 'redis://127.0.0.1:1', prefix: 'x:' })
  t.type(scale.eventBus.publish, 'function')
  t.type(scale.answerRouter.forward, 'function')
  await scale.eventBus.close()
  await scale.answerRouter.close()
  await scale.catalogStore.close()
  // Checked like every option: coded (a TypeError), naming the exact key.
  t.throws(() => entry.redisScale({} as never), { code: 'FST_MCP_INVALID_OPTION', message: /"redis": give exactly one of "url".*and "client"/ })
  t.ok((() => { try { entry.redisScale({} as never) } catch (err) { return err } })() instanceof TypeError, 'a TypeError')
  t.throws(() => entry.redisScale(undefined as never), { code: 'FST_MCP_INVALID_OPTION', message: /"redis": is required/ })
  t.throws(() => entry.redisScale({ url: 'http://x' }), /"redis\.url": expected a redis:\/\/ or rediss:\/\//)
  t.throws(() => entry.redisScale({ url: 'redis://x', client: {} as never }), /"redis\.client": expected an ioredis client/)
  t.throws(() => entry.redisScale({ url: 'redis://x', prefix: 3 as never }), /"redis\.prefix": expected a string/)
  t.throws(() => entry.redisScale({ url: 'redis://x', commandTimeoutMs: 0 }), /"redis\.commandTimeoutMs": expected a positive integer \(milliseconds\)/)
  t.throws(() => entry.redisScale({ cluster: { nodes: [] } }), /"redis\.cluster\.nodes": expected a non-empty array of redis:\/\/ or rediss:\/\/ URLs/)
  t.throws(() => entry.redisScale({ cluster: { nodes: ['redis://a:1', 'http://b:2'] } }), /"redis\.cluster\.nodes\[1\]": expected a redis:\/\/ or rediss:\/\/ URL/)
  t.throws(() => entry.redisScale({ cluster: { nodes: ['redis://a:1'], node: [] } as never }), /"redis\.cluster\.node": unknown option \(known: nodes\); did you mean "nodes"\?/)
  t.throws(() => entry.redisScale({ url: 'redis://x', prefix: 'a{1}:' }), /"redis\.prefix": must not contain "\{" or "\}"/)
  t.throws(() => entry.redisScale({ url: 'redis://x', prefx: 'a:' } as never), { code: 'FST_MCP_INVALID_OPTION', message: /"redis\.prefx": unknown option \(known: url, cluster, client, prefix, connectTimeoutMs, commandTimeoutMs\); did you mean "prefix"\?/ })
})

t.test('package.json: ./redis in the exports map, ioredis an optional peer', async (t) => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'))
  t.same(pkg.exports['./redis'], { types: './dist/lib/redis/index.d.ts', default: './dist/lib/redis/index.js' })
  t.ok(pkg.peerDependencies.ioredis, 'ioredis is a peer dependency')
  t.same(pkg.peerDependenciesMeta.ioredis, { optional: true })
  t.notOk(pkg.dependencies.ioredis, 'not a runtime dependency')
})
