/**
 * Issue 36 items 2, 3 and 13, per schema library, at the default limits
 * (`limits.bodyLimit` 1 MiB, `limits.maxArgumentValues` 4096): one request
 * each with a 1 MiB argument array, wrong (`{"xs":[0,0,…]}` against an array
 * of strings, and of a union of two constants) and right, while a 1 ms
 * timer measures how long the event loop was blocked; then the heap over
 * runtime churn (tools added, called and removed). Run by
 * `npm run bench:hostile` after the definitions' cases, or alone:
 *
 *   npx tsx bench/hostile-libraries.ts
 *   BYTES=65536 CYCLES=1000 npx tsx bench/hostile-libraries.ts
 */
import { Type as LegacyType } from '@sinclair/typebox'
import { type } from 'arktype'
import Fastify, { type FastifyInstance } from 'fastify'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Type } from 'typebox'
import * as v from 'valibot'
import { toStandardJsonSchema } from '@valibot/to-json-schema'
import { z } from 'zod'
import { againstGoal, STALL_GOAL_MS, startStallMeter } from './stall-goal.js'
import mcpCapabilities, { defineTools } from '../lib/index.js'

const BYTES = Number(process.env.BYTES ?? 1024 * 1024)
const CYCLES = Number(process.env.CYCLES ?? 10_000)

const strings = {
  'plain JSON Schema': { type: 'object', properties: { xs: { type: 'array', items: { type: 'string' } } }, required: ['xs'] },
  'typebox 0.34': LegacyType.Object({ xs: LegacyType.Array(LegacyType.String()) }),
  'typebox 1.x': Type.Object({ xs: Type.Array(Type.String()) }),
  zod: z.object({ xs: z.array(z.string()) }),
  valibot: toStandardJsonSchema(v.object({ xs: v.array(v.string()) })),
  arktype: type({ xs: 'string[]' })
}
const unions = {
  'plain JSON Schema': { type: 'object', properties: { xs: { type: 'array', items: { anyOf: [{ const: 'a' }, { const: 'b' }] } } }, required: ['xs'] },
  'typebox 0.34': LegacyType.Object({ xs: LegacyType.Array(LegacyType.Union([LegacyType.Literal('a'), LegacyType.Literal('b')])) }),
  'typebox 1.x': Type.Object({ xs: Type.Array(Type.Union([Type.Literal('a'), Type.Literal('b')])) }),
  zod: z.object({ xs: z.array(z.enum(['a', 'b'])) }),
  valibot: toStandardJsonSchema(v.object({ xs: v.array(v.picklist(['a', 'b'])) })),
  arktype: type({ xs: "('a'|'b')[]" })
}
const names = Object.keys(strings) as Array<keyof typeof strings>
const toolName = (library: string, kind: string) => `${kind}_${library.replace(/[^a-z0-9]+/gi, '_')}`
const definitions: Record<string, unknown> = {}
for (const library of names) {
  definitions[toolName(library, 'strings')] = { input: strings[library], handler: () => 'ok' }
  definitions[toolName(library, 'union')] = { input: unions[library], handler: () => 'ok' }
}

/** Items of `item` (its JSON text) that fill a tools/call body of `BYTES`. */
function itemsFor (item: string): number {
  return Math.floor((BYTES - 200) / (item.length + 1))
}

async function blockedMs (app: FastifyInstance, name: string, args: unknown): Promise<[number, string]> {
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
  const stopMeter = startStallMeter()
  const reply = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }, payload })
  const blocked = stopMeter()
  const body = JSON.parse(reply.body)
  const answer = reply.statusCode >= 400 ? `HTTP ${reply.statusCode}` : body.id !== 1 ? 'BAD ANSWER' : body.result?.isError === true ? `tool error: ${String(body.result.content[0].text).slice(0, 70)}` : body.error !== undefined ? `error ${body.error.code}` : 'result'
  return [blocked, answer]
}

const app = Fastify()
await app.register(mcpCapabilities, { server: defineTools(definitions as never), serverInfo: { name: 'hostile-libraries', version: '1' } })
await app.ready()
const wrong = { xs: Array.from({ length: itemsFor('0') }, () => 0) }
const right = { xs: Array.from({ length: itemsFor('"a"') }, () => 'a') }
// the most a Standard Schema library is given at the default limits: the object, its array and the items
const bound = { xs: Array.from({ length: 4096 - 2 }, () => 0) }
// Every validator compiled and warmed on a small value first: the figures are the checks', not compiling's.
for (const name of Object.keys(definitions)) {
  await blockedMs(app, name, { xs: ['a'] })
  await blockedMs(app, name, { xs: [0] })
}
console.log(`\nper schema library, one ${(BYTES / 1024).toFixed(0)} KiB tools/call each at the default limits (legacy era)`)
console.log('library'.padEnd(20), 'case'.padEnd(34), 'loop blocked ms', `goal ${STALL_GOAL_MS} ms`, ' answer')
let worst = 0
const over: string[] = []
for (const library of names) {
  for (const [what, name, args] of [
    [`wrong: ${wrong.xs.length.toLocaleString('en')} × 0, strings`, toolName(library, 'strings'), wrong],
    [`wrong: ${wrong.xs.length.toLocaleString('en')} × 0, 'a'|'b'`, toolName(library, 'union'), wrong],
    [`right: ${right.xs.length.toLocaleString('en')} × "a", strings`, toolName(library, 'strings'), right],
    [`right: ${right.xs.length.toLocaleString('en')} × "a", 'a'|'b'`, toolName(library, 'union'), right],
    [`wrong: ${bound.xs.length.toLocaleString('en')} × 0, strings`, toolName(library, 'strings'), bound],
    [`wrong: ${bound.xs.length.toLocaleString('en')} × 0, 'a'|'b'`, toolName(library, 'union'), bound]
  ] as const) {
    const [blocked, answer] = await blockedMs(app, name, args)
    worst = Math.max(worst, blocked)
    if (blocked > STALL_GOAL_MS) over.push(`${library} ${what} (${blocked.toFixed(0)} ms)`)
    console.log(library.padEnd(20), what.padEnd(34), blocked.toFixed(0).padStart(15), againstGoal(blocked).padStart(10), ' ', answer)
  }
}
console.log(`worst event-loop stall per library case: ${worst.toFixed(0)} ms (parsing and answering the body included); ` +
  (over.length === 0 ? `every case within the ${STALL_GOAL_MS} ms goal` : `over the ${STALL_GOAL_MS} ms goal: ${over.join(', ')}`))

// Runtime churn: a tool of its own schema added, called (right and wrong) and removed, CYCLES times per kind.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const heapMiB = (): number => {
  for (let i = 0; i < 3; i++) gc()
  return process.memoryUsage().heapUsed / 1024 / 1024
}
console.log(`\nruntime churn: ${CYCLES.toLocaleString('en')} add/call/remove cycles per kind, heap after GC`)
console.log('kind'.padEnd(20), 'heap before MiB', ' after MiB', ' per cycle KiB')
const KINDS: Record<string, (i: number) => unknown> = {
  'plain JSON Schema': (i) => ({ type: 'object', properties: { n: { type: 'integer', maximum: i } }, required: ['n'] }),
  'typebox 1.x': (i) => Type.Object({ n: Type.Integer({ maximum: i }) }),
  'typebox 0.34': (i) => LegacyType.Object({ n: LegacyType.Integer({ maximum: i }) }),
  zod: (i) => z.object({ n: z.number().int().max(i) })
}
const churn = Fastify()
await churn.register(mcpCapabilities, { server: defineTools({}), serverInfo: { name: 'churn', version: '1' } })
await churn.ready()
const call = (name: string, n: unknown) => churn.inject({
  method: 'POST',
  url: '/mcp',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
  payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { n } } })
})
for (const [kind, schema] of Object.entries(KINDS)) {
  const before = heapMiB()
  for (let i = 0; i < CYCLES; i++) {
    churn.mcp.tools.add('churning', { input: schema(i) as never, handler: () => 'ok' })
    await call('churning', 0)
    await call('churning', 'wrong')
    await churn.mcp.tools.remove('churning')
  }
  const after = heapMiB()
  console.log(kind.padEnd(20), before.toFixed(1).padStart(15), after.toFixed(1).padStart(10), ((after - before) * 1024 / CYCLES).toFixed(2).padStart(14))
}
await app.close()
await churn.close()
