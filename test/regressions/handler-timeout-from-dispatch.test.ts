/**
 * Issue 36 item 7: `limits.handlerTimeoutMs` started with the handler,
 * after the hooks, so an `onRequest` hook that never settled (waiting on a
 * stuck dependency) held its request and socket forever, and a slow one
 * added its time to the handler's whole bound. The bound now runs from
 * dispatch: a hook that never settles gets the timeout answer, and the
 * handler gets only what the hooks left of it.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { defineTools, ErrorCode } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

const TIMEOUT_MS = 300
const never = new Promise<never>(() => {})
// The endpoint's timers are unref'd (a real server's socket keeps the process up; inject has none).
const keepAlive = setInterval(() => {}, 1000)
t.teardown(() => clearInterval(keepAlive))

async function build (t: Test, hooks: (app: FastifyInstance) => void, handlerStarted: number[] = [], aborted: number[] = []): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    serverInfo: { name: 'deadline', version: '1.0.0' },
    limits: { handlerTimeoutMs: TIMEOUT_MS },
    server: defineTools({
      quick: { handler: () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) },
      hang: {
        handler: (_args: Record<string, never>, ctx) => {
          handlerStarted.push(performance.now())
          ctx.signal.addEventListener('abort', () => aborted.push(performance.now()))
          return never
        }
      }
    })
  })
  hooks(app)
  await app.ready()
  return app
}

for (const era of ['legacy', 'modern'] as const) {
  t.test(`${era}: an onRequest hook that never settles gets the timeout answer`, async (t) => {
    const app = await build(t, (app) => {
      app.mcp.addHook('onRequest', (op) => op.target === 'quick' ? never : undefined)
    })
    const client = injectClient(app, { era })
    await t.rejects(client.callTool('quick'), { code: ErrorCode.InternalError, message: /timed out/ })
  })

  t.test(`${era}: a preHandler hook that never settles gets it too`, async (t) => {
    const app = await build(t, (app) => {
      app.mcp.addHook('preHandler', () => never)
    })
    await t.rejects(injectClient(app, { era }).callTool('quick'), { code: ErrorCode.InternalError, message: /timed out/ })
  })

  t.test(`${era}: the handler gets what a slow onRequest hook left of the bound`, async (t) => {
    const started: number[] = []
    const aborted: number[] = []
    const hookMs = 200
    const app = await build(t, (app) => {
      app.mcp.addHook('onRequest', async () => { await new Promise((resolve) => setTimeout(resolve, hookMs)) })
    }, started, aborted)
    await t.rejects(injectClient(app, { era }).callTool('hang'), { code: ErrorCode.InternalError, message: /timed out/ })
    const ran = (aborted[0] as number) - (started[0] as number)
    // From dispatch: ~100 ms left for the handler; a bound started with the handler gives it the whole 300.
    t.ok(ran < TIMEOUT_MS - 20, `the handler ran ${ran.toFixed(0)} ms before its signal aborted`)
  })
}
