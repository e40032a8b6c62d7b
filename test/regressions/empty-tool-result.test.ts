/**
 * Issue 36 item 15: a tool handler returning `undefined` or `null` was
 * answered `{}`, without the `content` a `CallToolResult` requires. Now it
 * answers a result with an empty `content` array, in both eras, for raw and
 * defined tools and for work run as a task; each answer is checked against
 * the specification's schema of its version. A defined tool with an output
 * schema still refuses nothing (-32603), as it refuses any value its schema
 * does not admit.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Type } from '@sinclair/typebox'
import mcpCapabilities, { defineTools, ErrorCode, runAsTask } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { specProblems } from '../helpers/spec-schemas.js'
import { tasksClient } from '../tasks/helpers.js'

const nothing = (kind: string): undefined | null => kind === 'null' ? null : undefined

async function build (t: Test, server: object): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { serverInfo: { name: 'empty', version: '1.0.0' }, server: server as never, tasks: true })
  await app.ready()
  return app
}

const defined = defineTools({
  nothing: { input: Type.Object({ kind: Type.String() }), handler: async ({ kind }) => nothing(kind) as never },
  typed: { input: Type.Object({ kind: Type.String() }), output: Type.Object({ n: Type.Optional(Type.Number()) }), handler: ({ kind }) => nothing(kind) as never },
  tasked: {
    input: Type.Object({ kind: Type.String() }),
    handler: ({ kind }, ctx) => runAsTask(ctx, async () => nothing(kind) as never)
  }
})

const raw = {
  listTools: () => ({ tools: [{ name: 'raw', inputSchema: { type: 'object' } }] }),
  callTool: (params: { arguments?: { kind?: string } }) => nothing(params.arguments?.kind ?? 'undefined')
}

for (const kind of ['undefined', 'null']) {
  t.test(`a tool returning ${kind}: an empty CallToolResult in both eras`, async (t) => {
    for (const [what, server, name] of [['defined', defined, 'nothing'], ['raw', raw, 'raw']] as const) {
      const client = mcpClient(t, await build(t, server))
      const legacy = await client.legacy('tools/call', { name, arguments: { kind } }, { protocolVersion: '2025-11-25' })
      const modern = await client.modern('tools/call', { name, arguments: { kind } })
      for (const [version, reply] of [['2025-11-25', legacy], ['2026-07-28', modern]] as const) {
        t.strictSame(specProblems(version, 'CallToolResult', reply.json.result), [], `${what}, ${version}: valid against the spec's CallToolResult`)
        t.strictSame(reply.json.result.content, [], `${what}, ${version}: no content`)
        t.not(reply.json.result.isError, true)
      }
    }
  })

  t.test(`work run as a task returning ${kind}: the task keeps an empty CallToolResult`, async (t) => {
    const app = await build(t, defined)
    const client = tasksClient(t, app)
    const created = await client.call('tasked', { kind })
    t.equal(created.json.result.resultType, 'task')
    const task = await client.poll(created.json.result.taskId)
    t.equal(task.status, 'completed')
    t.strictSame(specProblems('2026-07-28', 'CallToolResult', task.result), [], 'valid against the spec\'s CallToolResult')
    t.strictSame(task.result.content, [])
    // Inline (no tasks extension declared): the same answer.
    const inline = await mcpClient(t, app).modern('tools/call', { name: 'tasked', arguments: { kind } })
    t.strictSame(inline.json.result.content, [])
  })

  t.test(`a tool with an output schema returning ${kind}: -32603, as for any value the schema refuses`, async (t) => {
    const client = mcpClient(t, await build(t, defined))
    const reply = await client.legacy('tools/call', { name: 'typed', arguments: { kind } }, { protocolVersion: '2025-11-25' })
    t.equal(reply.json.error?.code, ErrorCode.InternalError)
  })
}
