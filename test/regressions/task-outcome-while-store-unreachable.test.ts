/**
 * Issue 22 item 3: a task whose work ends while its instance cannot reach
 * Redis must not lose its outcome (before: `complete()` rejected, the outcome
 * was logged and dropped, and the task answered `working` until its TTL).
 * The outcome is held and stored once Redis answers again; one that does not
 * fit what may be held becomes a short failure saying why. A real
 * redis-server keeps its data throughout; a proxy cuts one instance away.
 */
import t from 'tap'
import { ErrorCode, type HandlerContext, McpError, runAsTask } from '../../lib/index.js'
import { redisTaskStore } from '../../lib/redis/redis-task-store.js'
import { UNREACHABLE_REASON } from '../../lib/tasks/held-outcomes.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { startRedisServer } from '../helpers/redis-server.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'
import { tasksClient } from '../tasks/helpers.js'

const SECRET = 'held-outcome-request-state-secret-0123456789abcdef'

const redis = await startRedisServer()
t.teardown(redis.close)

/** A tool whose task waits until the test releases it by label, then returns `size` characters (or fails). */
function waitingModule (release: Map<string, (fail?: boolean) => void>) {
  return {
    listTools: () => ({ tools: [{ name: 'wait', inputSchema: { type: 'object' } }] }),
    callTool: (params: { arguments?: Record<string, unknown> }, ctx: HandlerContext) => runAsTask(ctx, () => new Promise((resolve, reject) => {
      const { label, size } = params.arguments as { label: string, size: number }
      release.set(label, (fail) => fail === true
        ? reject(new McpError(ErrorCode.InvalidParams, 'work failed'))
        : resolve({ content: [{ type: 'text', text: `${label}:` + 'x'.repeat(size) }] }))
    }), { required: true })
  }
}

async function setup (t: any, prefix: string, limits: Record<string, number> = {}) {
  const proxy = await startTcpProxy(redis.port)
  t.teardown(proxy.close)
  const release = new Map<string, (fail?: boolean) => void>()
  const a = await buildApp(t, {
    server: waitingModule(release),
    tasks: { ...limits },
    requestState: { secret: SECRET },
    scale: { taskStore: redisTaskStore({ url: proxy.url, prefix, commandTimeoutMs: 500 }) }
  })
  const b = await buildApp(t, {
    server: waitingModule(new Map()),
    tasks: { ...limits },
    requestState: { secret: SECRET },
    scale: { taskStore: redisTaskStore({ url: redis.url, prefix, commandTimeoutMs: 500 }) }
  })
  return { proxy, release, viaA: tasksClient(t, a), viaB: tasksClient(t, b) }
}

/** Reads the task through `client` until `done` holds (bounded). */
async function until (client: ReturnType<typeof tasksClient>, taskId: string, done: (task: any) => boolean, ms = 8000): Promise<any> {
  const deadline = Date.now() + ms
  for (;;) {
    const task = (await client.get(taskId)).json.result
    if ((task !== undefined && done(task)) || Date.now() > deadline) return task
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('work ends while its instance is cut off from Redis: the result is stored once Redis is reachable again', async (t) => {
  const { proxy, release, viaA, viaB } = await setup(t, 'held1:')
  const ok = (await viaA.call('wait', { label: 'ok', size: 10 })).json.result.taskId
  const failing = (await viaA.call('wait', { label: 'failing', size: 0 })).json.result.taskId
  t.equal((await viaB.get(ok)).json.result?.status, 'working', 'the other instance sees the task working')

  proxy.cut()
  await new Promise((resolve) => setTimeout(resolve, 200))
  release.get('ok')?.()
  release.get('failing')?.(true)
  await new Promise((resolve) => setTimeout(resolve, 500))
  t.equal((await viaB.get(ok)).json.result?.status, 'working', 'not stored while A cannot reach Redis (Redis keeps its data)')

  proxy.restore()
  const done = await until(viaB, ok, (task) => task.status !== 'working')
  t.equal(done?.status, 'completed', 'stored once A reaches Redis again')
  t.strictSame(done?.result?.content, [{ type: 'text', text: 'ok:xxxxxxxxxx' }], 'with the work\'s own result')
  const failed = await until(viaB, failing, (task) => task.status !== 'working')
  t.match(failed, { status: 'failed', error: { code: ErrorCode.InvalidParams, message: 'work failed' } }, 'a failure is kept the same way')
  t.equal((await viaA.get(ok)).json.result?.status, 'completed', 'both instances agree')
})

t.test('more than may be held: the overflow is recorded as failed, saying why', async (t) => {
  // Held outcomes are bounded by maxStoredBytes (at most 16 MiB) and maxTasks.
  const { proxy, release, viaA, viaB } = await setup(t, 'held2:', { maxTaskBytes: 6000, maxStoredBytes: 8000 })
  const first = (await viaA.call('wait', { label: 'first', size: 5000 })).json.result.taskId
  const second = (await viaA.call('wait', { label: 'second', size: 5000 })).json.result.taskId

  proxy.cut()
  await new Promise((resolve) => setTimeout(resolve, 200))
  release.get('first')?.()
  await new Promise((resolve) => setTimeout(resolve, 50))
  release.get('second')?.()
  await new Promise((resolve) => setTimeout(resolve, 300))
  proxy.restore()

  const one = await until(viaB, first, (task) => task.status !== 'working')
  t.equal(one?.status, 'completed', 'the outcome that fit is stored whole')
  t.equal(one?.result?.content?.[0]?.text?.length, 'first:'.length + 5000)
  const two = await until(viaB, second, (task) => task.status !== 'working')
  t.match(two, { status: 'failed', error: { code: ErrorCode.InternalError, message: `The task's result could not be kept: ${UNREACHABLE_REASON}` } },
    'the one that did not fit ends as failed, not working until its TTL')
})
