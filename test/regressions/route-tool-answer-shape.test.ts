/**
 * A route's 2xx answer under an object output schema that is not a JSON
 * object (issue 36, item 11): an array, `null`, or a string payload (which
 * skips the route's serializer) became `structuredContent`, which must be an
 * object matching the listed schema. It is a tool error (and logged).
 */
import Fastify from 'fastify'
import t from 'tap'
import { Type } from '@sinclair/typebox'
import mcpCapabilities from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

t.test('an answer that is not a JSON object under an object output schema is a tool error', async (t) => {
  const logs: string[] = []
  const app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => { logs.push(line) } } } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: {}, serverInfo: { name: 'answer-shape', version: '1.0.0' }, routes: true })
  const User = Type.Object({ id: Type.Integer(), name: Type.String() })
  const answers: Record<string, (reply: import('fastify').FastifyReply) => unknown> = {
    array: (reply) => reply.type('application/json').send('[{"id":1,"name":"a"}]'),
    null: (reply) => reply.type('application/json').send('null'),
    string: (reply) => reply.type('application/json').send('"just text"'),
    object: () => ({ id: 1, name: 'Ada', secret: 'dropped by the serializer' })
  }
  app.get('/user/:kind', { config: { mcp: { name: 'user' } }, schema: { params: Type.Object({ kind: Type.String() }), response: { 200: User } } },
    async (request, reply) => answers[(request.params as { kind: string }).kind]!(reply))
  await app.ready()
  const client = injectClient(app, { era: 'modern' })
  const tool = (await client.listTools()).tools[0]!
  t.equal((tool.outputSchema as { type?: string }).type, 'object', 'an object output schema is listed')
  for (const kind of ['array', 'null', 'string']) {
    const result = await client.callTool('user', { kind })
    t.equal(result.isError, true, `a ${kind} answer is a tool error`)
    t.equal(result.structuredContent, undefined, 'never structuredContent')
    t.match((result.content as Array<{ text: string }>)[0]?.text, /The tool "user" failed \(its answer is not the JSON object it declares\)/)
  }
  t.ok(logs.some((line) => line.includes('did not answer a JSON object')), 'logged for the operator')
  t.strictSame((await client.callTool('user', { kind: 'object' })).structuredContent, { id: 1, name: 'Ada' }, 'an object answer is structuredContent')
})
