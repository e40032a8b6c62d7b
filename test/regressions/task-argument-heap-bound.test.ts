// Guards issue 26: the per-task bound on what a task keeps of its request
// (`tasks.maxArgumentBytes`) counted JSON characters, but a task's work
// holds the parsed arguments: a 64 KiB `[{},{},…]` argument pinned ~1.3 MB
// of heap per parked task (~20x), so `maxTasks` such tasks exhausted a 1 GB
// heap. The bound is now on the estimated heap cost of the parsed value.
// This parks `maxTasks` object-heavy tasks twice: with the largest argument
// the old bound let through (now over the bound: they run inline and keep
// nothing), and with the largest the new bound accepts (every one parks);
// the heap held must stay within maxTasks x (maxArgumentBytes + a fixed
// allowance for the task's own record, timers and question).
import t from 'tap'
import { runAsTask, type HandlerContext } from '../../lib/index.js'
import { heapCostWithin } from '../../lib/tasks/argument-cost.js'
import { buildApp } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta } from '../helpers/mcp-inject.js'
import { TASKS_CAPS } from '../tasks/helpers.js'
import { settledBytes } from './helpers.js'

const MAX_TASKS = 200
const MAX_ARGUMENT_BYTES = 64 * 1024
/** What one parked task holds besides its arguments (record, controller, timer, logger child, question): measured ~10 KiB. */
const FIXED_PER_TASK = 32 * 1024
const BOUND = MAX_TASKS * (MAX_ARGUMENT_BYTES + FIXED_PER_TASK)

const server = {
  listTools: () => ({ tools: [{ name: 'park', inputSchema: { type: 'object' } }] }),
  callTool: ({ arguments: args }: { arguments: { pad: unknown[] } }, ctx: HandlerContext) => runAsTask(ctx, async (task) => {
    // The work keeps its arguments, as a handler reading them after a question does.
    const answer = await task.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
    return { content: [{ type: 'text', text: `${args.pad.length} ${String(answer.action)}` }] }
  })
}

const CAPS = { ...TASKS_CAPS, elicitation: {} }
const META = modernMeta(CAPS)

function padJson (count: number): string {
  return '[' + '{},'.repeat(Math.max(0, count - 1)) + (count > 0 ? '{}' : '') + ']'
}

/** The most `{}` in `pad` whose arguments, capabilities and client info fit `limit` by the estimate. */
function largestFitting (limit: number): number {
  const fixed = (heapCostWithin(META['io.modelcontextprotocol/clientCapabilities'], limit) ?? 0) +
    (heapCostWithin(META['io.modelcontextprotocol/clientInfo'], limit) ?? 0)
  let low = 0
  let high = limit
  while (low < high) {
    const mid = Math.ceil((low + high) / 2)
    const args = { pad: Array.from({ length: mid }, () => ({})) }
    if ((heapCostWithin(args, limit - fixed) ?? Infinity) <= limit - fixed) low = mid
    else high = mid - 1
  }
  return low
}

const SIZES: Array<[string, number, boolean]> = [
  // The old bound counted characters: ~21,800 objects fit in 64 KiB of JSON.
  ['the largest argument the character bound accepted', Math.floor((MAX_ARGUMENT_BYTES - 200) / 3), false],
  ['the largest argument the heap bound accepts', largestFitting(MAX_ARGUMENT_BYTES), true]
]

for (const [what, count, parks] of SIZES) {
  t.test(`${MAX_TASKS} object-heavy tasks, ${what} (${count} objects): heap within ${(BOUND / 1024 / 1024).toFixed(1)} MiB`, async (t) => {
    const app = await buildApp(t, {
      server: server as never,
      tasks: { maxTasks: MAX_TASKS + 1, maxTasksPerOwner: MAX_TASKS + 1, maxArgumentBytes: MAX_ARGUMENT_BYTES }
    } as never)
    const payload = (id: number) => '{"jsonrpc":"2.0","id":' + id + ',"method":"tools/call","params":{"name":"park","arguments":{"pad":' +
      padJson(count) + '},"_meta":' + JSON.stringify(META) + '}}'
    const send = (id: number) => app.inject({ method: 'POST', url: '/mcp', headers: modernHeaders('tools/call', { name: 'park' }), payload: payload(id) })
    await send(0) // lazily built state is not counted (its task is the "+ 1")
    const before = await settledBytes()
    let parked = 0
    for (let id = 1; id <= MAX_TASKS; id++) {
      const reply = await send(id)
      t.ok(reply.statusCode < 500, 'never a 5xx') || t.bailout(reply.body.slice(0, 200))
      if (JSON.parse(reply.body).result?.resultType === 'task') parked++
    }
    const held = (await settledBytes()) - before
    t.comment(`${parked} parked, ${(held / 1024 / 1024).toFixed(1)} MiB held (${(held / MAX_TASKS / 1024).toFixed(1)} KiB per request)`)
    t.equal(parked, parks ? MAX_TASKS : 0, parks ? 'every task parks' : 'over the bound: no task parks (the calls run inline)')
    t.ok(held <= BOUND, `heap held ${(held / 1024 / 1024).toFixed(1)} MiB <= ${(BOUND / 1024 / 1024).toFixed(1)} MiB`)
  })
}
