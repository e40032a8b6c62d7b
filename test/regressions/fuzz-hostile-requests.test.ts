// The hostile review's fuzzing, kept (issue 11): thousands of generated
// bodies and headers per run, every answer checked (never a 5xx, a
// well-formed JSON-RPC response with the request's id when it had a readable
// one, 202 only for notifications and responses, no internal text). Bounded
// in count: a few seconds. `npm run fuzz` runs the same model for longer.
// A failing run prints its seed: FUZZ_SEED=<seed> replays it.
import fc from 'fast-check'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { createFuzzRunner, hostileModule, hostileRequest } from '../helpers/hostile.js'

const RUNS = 3000

t.test(`${RUNS} hostile requests: each answered well-formed, with the right id, never a 5xx`, async (t) => {
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: hostileModule(), serverInfo: { name: 'fuzz', version: '1' }, tasks: true, limits: { clientRequestTimeoutMs: 20 } })
  const seed = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31))
  const runner = createFuzzRunner(app)
  for (const request of fc.sample(hostileRequest, { numRuns: RUNS, seed })) await runner.send(request)
  const closing = app.close()
  await runner.finish()
  await closing
  const { sent, bad, late, statuses } = runner.tally
  t.comment(`seed ${seed}: ${sent} requests (${late} answered after close), ${bad.length} bad answers; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.equal(sent, RUNS)
  t.ok(statuses.get(200) !== undefined && (statuses.get(200) as number) > RUNS / 5, 'a good share reaches the handlers')
  t.strictSame(bad.slice(0, 5), [], `no bad answers (seed ${seed})`)
})
