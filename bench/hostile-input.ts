/**
 * The worst event-loop stall one hostile request can cause through the
 * definitions (issue 22 items 1, 2, 8; issue 26): 1 MB bodies aimed at each
 * built-in string format, at URI templates with several variables, at the
 * error texts, and at the task bound, each sent once through the endpoint
 * (`inject`) while a timer measures how long the event loop was blocked.
 * Every answer is checked to be a well-formed answer with the request's id,
 * and every case's stall is set against the goal (`STALL_GOAL_MS`: no
 * single request blocks the loop longer, at the default limits). The floor
 * cases are what parsing a body of that shape costs with nothing to check.
 *
 *   npx tsx bench/hostile-input.ts            # 1 MB bodies
 *   SIZE=200000 npx tsx bench/hostile-input.ts
 */
import { Type } from '@sinclair/typebox'
import Fastify from 'fastify'
import { againstGoal, STALL_GOAL_MS, startStallMeter } from './stall-goal.js'
import mcpCapabilities, { defineResources, defineTools, runAsTask } from '../lib/index.js'
import { forgedCursorMemory } from './hostile-forged-cursors.js'
import { spanQueueMemory } from './hostile-span-queue.js'

const SIZE = Number(process.env.SIZE ?? 1_000_000)
/** Bodies of the default size fit the default `limits.bodyLimit` (1 MiB); larger ones need it raised. */
const LIMITS = SIZE <= 1_000_000 ? {} : { bodyLimit: 4 * SIZE }
const FORMATS = ['email', 'date', 'time', 'date-time', 'uri', 'uri-reference', 'uuid', 'ipv4', 'ipv6', 'hostname', 'regex'] as const

/** Long runs of what each check loops on (the shapes that broke or nearly broke a check). */
const FORMAT_VALUES: Record<string, (n: number) => string[]> = {
  email: (n) => ['a@' + '.'.repeat(n) + '@', 'a@' + 'a.'.repeat(n / 2) + ' '],
  date: (n) => ['1'.repeat(n)],
  time: (n) => ['12:00:00.' + '1'.repeat(n) + 'x'],
  'date-time': (n) => ['2020-01-01T' + '1'.repeat(n)],
  uri: (n) => ['a' + '+'.repeat(n), 'a:' + '%'.repeat(n)],
  'uri-reference': (n) => ['%'.repeat(n)],
  uuid: (n) => ['0'.repeat(n)],
  ipv4: (n) => ['1.'.repeat(n / 2)],
  ipv6: (n) => [':'.repeat(n)],
  hostname: (n) => ['a.'.repeat(n / 2), 'a-'.repeat(n / 2) + '!'],
  // 17 characters in JSON each (the backslash is escaped): the body stays within the default limits.bodyLimit
  regex: (n) => ['\\p{Script=Greek}'.repeat(n / 17), '('.repeat(n)]
}

const tools = defineTools({
  ...Object.fromEntries(FORMATS.map((format) => [format.replace(/-/g, '_'), {
    input: Type.Object({ value: Type.String({ format }) }),
    handler: () => ({ content: [{ type: 'text' as const, text: 'ok' }] })
  }])),
  strict: { input: Type.Object({ n: Type.Integer() }, { additionalProperties: false }), handler: () => ({ content: [{ type: 'text' as const, text: 'ok' }] }) },
  park: {
    input: Type.Object({ pad: Type.Array(Type.Object({})) }),
    handler: (args, ctx) => runAsTask(ctx, async () => ({ content: [{ type: 'text' as const, text: String(args.pad.length) }] })) as never
  }
})
const resources = defineResources({
  db: { uriTemplate: 'db://{schema}.{table}.{column}', read: () => 'ok' },
  kv: { uriTemplate: 'kv://{key}-{value}', read: () => 'ok' },
  many: { uriTemplate: 'x://{a}.{b}.{c}.{d}.{e}.{f}.{g}.{h}', read: () => 'ok' }
})

const cases: Array<[string, string, Record<string, unknown>]> = []
for (const format of FORMATS) {
  for (const value of FORMAT_VALUES[format]?.(SIZE) ?? []) cases.push([`format ${format} ${JSON.stringify(value.slice(0, 8))}…`, 'tools/call', { name: format.replace(/-/g, '_'), arguments: { value } }])
}
cases.push(
  // The floor: what parsing and answering a body of this size costs with nothing to check.
  ['floor: tools/list, 1 MB string beside', 'tools/list', { pad: 'x'.repeat(SIZE) }],
  ['floor: tools/list, 1 MB of properties beside', 'tools/list', { pad: Object.fromEntries(Array.from({ length: SIZE / 12 }, (_, i) => [`k${i}`, 1])) }],
  ['floor: tools/list, 1 MB of [{},{},…] beside', 'tools/list', { pad: Array.from({ length: SIZE / 3 }, () => ({})) }],
  ['template db://{schema}.{table}.{column}', 'resources/read', { uri: 'db://' + 'a.'.repeat(SIZE / 2) }],
  ['template kv://{key}-{value}', 'resources/read', { uri: 'kv://' + '-'.repeat(SIZE) }],
  ['template with 8 variables', 'resources/read', { uri: 'x://' + 'a.'.repeat(SIZE / 2) }],
  ['unknown tool name', 'tools/call', { name: 'x'.repeat(SIZE) }],
  ['unknown properties', 'tools/call', { name: 'strict', arguments: Object.fromEntries(Array.from({ length: SIZE / 12 }, (_, i) => [`k${i}`, 1])) }],
  ['object-heavy task argument', 'tools/call', { name: 'park', arguments: { pad: Array.from({ length: SIZE / 3 }, () => ({})) } }]
)

const app = Fastify()
await app.register(mcpCapabilities, { server: { ...tools, ...resources } as never, serverInfo: { name: 'hostile', version: '1' }, tasks: true, limits: LIMITS })
await app.ready()
const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } }, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } }

console.log(`${SIZE.toLocaleString('en')}-character hostile values, one request each (legacy era, then modern for the task case), ${SIZE <= 1_000_000 ? 'default limits' : `limits.bodyLimit ${4 * SIZE}`}`)
console.log('case'.padEnd(48), 'request ms', 'loop blocked ms', `goal ${STALL_GOAL_MS} ms`, ' answer')
let worst = 0
const over: string[] = []
for (const [what, method, params] of cases) {
  const modern = what.startsWith('object-heavy')
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: modern ? { ...params, _meta: meta } : params })
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  if (modern) Object.assign(headers, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': String(params.name) })
  else headers['mcp-protocol-version'] = '2025-11-25'
  const stopMeter = startStallMeter()
  const started = performance.now()
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers, payload })
  const ms = performance.now() - started
  const blocked = stopMeter()
  const body = JSON.parse(reply.body)
  const answer = reply.statusCode >= 500 ? `HTTP ${reply.statusCode}` : body.id === 1 ? (body.error !== undefined ? `error ${body.error.code} (${body.error.message.length} chars)` : body.result?.isError === true ? `tool error (${body.result.content[0].text.length} chars)` : body.result?.resultType ?? 'result') : `BAD ANSWER (HTTP ${reply.statusCode})`
  worst = Math.max(worst, blocked)
  if (blocked > STALL_GOAL_MS) over.push(`${what} (${blocked.toFixed(0)} ms)`)
  console.log(what.padEnd(48), ms.toFixed(0).padStart(10), blocked.toFixed(0).padStart(15), againstGoal(blocked).padStart(10), ' ', answer)
}
console.log(`worst event-loop stall: ${worst.toFixed(0)} ms (parsing and answering a ${(SIZE / 1e6).toFixed(1)} MB body included); ` +
  (over.length === 0 ? `every case within the ${STALL_GOAL_MS} ms goal` : `over the ${STALL_GOAL_MS} ms goal: ${over.join(', ')}`))
await app.close()

// Memory a client can pin in a stalled span queue (issue 36 item 4).
await spanQueueMemory()
// Memory a client can pin through list cursors (issue 36 item 6).
await forgedCursorMemory()
await import('./hostile-libraries.js')
// What a route-backed tool holds and blocks for a large streamed answer within its cap.
const { routeStreamMemory } = await import('./hostile-route-stream.js')
await routeStreamMemory()
