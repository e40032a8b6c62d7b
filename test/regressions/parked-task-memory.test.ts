// Guards issue 11 item 1 (a remote crash): a parked task kept its whole
// creating request alive, parsed body included, until it ended or expired.
// ~0.9 MB bodies of `[{},{},...]` cost ~20 MB of heap per task, and ~200 such
// tasks killed the server. A task keeps only what it needs; this measures
// the heap held per parked task, with the padding in several places.
import t from 'tap'
import { runAsTask, type HandlerContext } from '../../lib/index.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import { TASKS_CAPS } from '../tasks/helpers.js'
import { MB, objectHeavyJson, settledBytes } from './helpers.js'

const TASKS = Number(process.env.TASKS ?? 30)
const BODY_BYTES = 900_000
/** Heap one parked task may hold (its record, controller, timer, logger child, question). */
const BOUND_PER_TASK = 128 * 1024

const server = {
  listTools: () => ({ tools: [{ name: 'park', inputSchema: { type: 'object' } }] }),
  callTool: (_params: unknown, ctx: HandlerContext) => runAsTask(ctx, async (task) => {
    const answer = await task.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
    return { content: [{ type: 'text', text: String(answer.action) }] }
  })
}

const CAPS = { ...TASKS_CAPS, elicitation: {} }
const PLACES: Record<string, (pad: string) => string> = {
  // Beside the arguments: nothing of it is needed by the task.
  params: (pad) => '{"name":"park","arguments":{},"pad":' + pad + ',"_meta":' + JSON.stringify(modernMeta(CAPS)) + '}',
  // Inside the client capabilities, which a task reads: over the bound, so the call runs without a task.
  capabilities: (pad) => '{"name":"park","arguments":{},"_meta":' +
    JSON.stringify(modernMeta({ ...CAPS, experimental: { pad: '@PAD@' } })).replace('"@PAD@"', pad) + '}',
  // Inside the arguments: over the task bound, so the call runs without a task.
  arguments: (pad) => '{"name":"park","arguments":{"pad":' + pad + '},"_meta":' + JSON.stringify(modernMeta(CAPS)) + '}'
}

for (const [place, paramsOf] of Object.entries(PLACES)) {
  t.test(`parked tasks with object-heavy bodies in ${place}: heap per task stays under ${BOUND_PER_TASK / 1024} KiB`, async (t) => {
    const app = await buildApp(t, { server, tasks: true })
    const pad = objectHeavyJson(BODY_BYTES)
    const headers = { ...modernHeaders('tools/call', { name: 'park' }), 'content-type': 'application/json' }
    const send = (id: number) => app.inject({
      method: 'POST',
      url: '/mcp',
      headers,
      payload: '{"jsonrpc":"2.0","id":' + id + ',"method":"tools/call","params":' + paramsOf(pad) + '}'
    })
    // A few first, so lazily built state (and what V8 keeps after large parses) is not counted.
    for (let i = 0; i < 3; i++) await send(-1 - i)
    const before = await settledBytes()
    // Calls that park nothing are slower (they run inline) and need fewer rounds to show a leak.
    const count = place === 'params' ? TASKS : 10
    let parked = 0
    for (let i = 1; i <= count; i++) {
      const reply = await send(i)
      t.ok(reply.statusCode < 500, 'never a 5xx')
      const result = JSON.parse(reply.body).result
      if (result?.resultType === 'task') parked++
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
    const perTask = ((await settledBytes()) - before) / count
    t.comment(`${place}: ${parked} parked, ${(perTask / 1024).toFixed(1)} KiB held per request`)
    if (place !== 'params') t.equal(parked, 0, `${place} over the task bound: no task is parked (the call runs inline)`)
    else t.equal(parked, count, 'every task parked')
    t.ok(perTask < BOUND_PER_TASK, `heap per parked task ${(perTask / 1024).toFixed(1)} KiB < ${BOUND_PER_TASK / 1024} KiB (the body is ${(BODY_BYTES / MB).toFixed(1)} MB)`)
  })
}
