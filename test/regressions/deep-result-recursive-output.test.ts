// Guards issue 20 (follow-up): a handler's result nested deeper than the
// stack allows, checked against a recursive output schema, was answered
// -32602 ("nested too deeply"), blaming the client for the server's result.
// Only argument checks make an overflow the client's error: a result is the
// server's fault, logged with the tool's name, answered -32603 with the
// request's id, in both eras and whichever library wrote the schema.
import { Type } from '@sinclair/typebox'
import t from 'tap'
import { z } from 'zod'
import { defineTools } from '../../lib/index.js'
import { buildApp, captureLogs } from '../helpers/mcp-fixtures.js'
import { mcpClient } from '../helpers/mcp-inject.js'

/** `{ children: [{ children: [...] }] }`, `depth` deep, built without recursion. */
function deepTree (depth: number): unknown {
  let node: { children: unknown[] } = { children: [] }
  for (let i = 0; i < depth; i++) node = { children: [node] }
  return node
}

const LegacyNode = Type.Recursive((self) => Type.Object({ children: Type.Array(self) }))
interface ZodNode { children: ZodNode[] }
const ZodNode: z.ZodType<ZodNode> = z.object({ get children () { return z.array(ZodNode) } })
const outputs = {
  'typebox 0.34': Type.Object({ root: LegacyNode }),
  'plain JSON Schema': {
    type: 'object',
    properties: { root: { $ref: '#/$defs/node' } },
    required: ['root'],
    $defs: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } }, required: ['children'] } }
  },
  zod: z.object({ root: ZodNode })
} as const

for (const [library, output] of Object.entries(outputs)) {
  for (const era of ['legacy', 'modern'] as const) {
    t.test(`${library} (${era}): a result deeper than the stack allows is the server's fault (-32603, logged)`, async (t) => {
      let depth = 60_000
      const tools = defineTools({
        tree: { output: output as never, handler: () => ({ root: deepTree(depth) }) as never }
      })
      const { logger, records } = captureLogs('warn')
      const app = await buildApp(t, { server: tools as never }, { logger })
      const client = mcpClient(t, app)
      const call = async (id: string) => era === 'modern'
        ? await client.modern('tools/call', { name: 'tree' }, { id })
        : await client.legacy('tools/call', { name: 'tree' }, { protocolVersion: '2025-11-25', id })
      const reply = await call('deep')
      const json = reply.json as { id?: unknown, error?: { code?: unknown, message?: unknown } }
      t.ok(reply.status < 500, `never a 5xx (got ${reply.status})`)
      t.equal(json.id, 'deep', 'the request id is echoed')
      t.equal(json.error?.code, -32603, 'an internal error, not -32602')
      t.equal(json.error?.message, 'Internal error', 'nothing of the result is told to the client')
      const logged = records.filter((r) => r.level >= 50)
      t.equal(logged.length, 1, 'logged once as a server error')
      t.match(logged[0], { tool: 'tree', problems: ['result: nested too deeply to check'] })

      // A shallow result is still served.
      depth = 2
      const ok = (await call('shallow')).json as { result?: { structuredContent?: unknown } }
      t.strictSame(ok.result?.structuredContent, { root: deepTree(2) })
    })
  }
}

// zod retries a check that threw asynchronously, so its overflow arrives as a
// rejected promise: arguments that deep stay the client's error.
t.test('zod: arguments deeper than the stack allows stay the client\'s error (-32602), also when the library retries asynchronously', async (t) => {
  const tools = defineTools({ tree: { input: z.object({ root: ZodNode }), handler: () => 'ok' } })
  const { logger, records } = captureLogs('warn')
  // Past limits.maxArgumentValues the arguments are refused before zod runs: raised here so zod itself meets the depth.
  const app = await buildApp(t, { server: tools as never, limits: { maxArgumentValues: 1_000_000 } }, { logger })
  const client = mcpClient(t, app)
  const body = '{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"tree","arguments":{"root":' +
    '{"children":['.repeat(60_000) + ']}'.repeat(60_000) + '}}}'
  const reply = await client.post(body, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' })
  const json = reply.json as { id?: unknown, error?: { code?: unknown, message?: unknown } }
  t.equal(json.id, 'deep')
  t.equal(json.error?.code, -32602)
  t.match(json.error?.message, /nested too deeply/)
  t.strictSame(records.filter((r) => r.level >= 50), [], 'no server error logged')
})
