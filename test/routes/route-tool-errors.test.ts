/**
 * Route-backed tools under `security.toolErrors`: a route's 4xx answer is what the
 * route deliberately tells any HTTP client, so its message reaches the model
 * in both modes (`'mask'` included); a 5xx answer never carries the route's
 * text, in both modes; a route handler's throw is the route's own 500
 * (Fastify's error handler), not a tool handler's throw that `security.toolErrors`
 * masks. A defined tool's throw beside it is masked, to show the difference.
 */
import Fastify from 'fastify'
import t from 'tap'
import { Type } from '@sinclair/typebox'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

for (const toolErrors of ['message', 'mask'] as const) {
  t.test(`toolErrors: '${toolErrors}'`, async (t) => {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(mcpCapabilities, {
      serverInfo: { name: 'route-errors', version: '1.0.0' },
      server: defineTools({ thrower: { handler: () => { throw new Error('defined tool internals') } } }),
      security: { toolErrors },
      routes: true,
      telemetry: false
    })
    app.get('/books/:id', {
      config: { mcp: { name: 'book' } },
      schema: { params: Type.Object({ id: Type.Integer() }) }
    }, async (request, reply) => {
      const id = (request.params as { id: number }).id
      if (id === 404) return reply.code(404).send({ statusCode: 404, error: 'Not Found', message: 'no book has id 404' })
      if (id === 409) return reply.code(409).type('text/plain').send('the shelf is locked')
      if (id === 500) throw new Error('connection to db-7.internal refused')
      if (id === 503) return reply.code(503).send({ message: 'replica db-7.internal lagging' })
      return { id }
    })
    await app.ready()
    const client = injectClient(app, { era: 'modern' })
    const text = async (id: number) => {
      const result = await client.callTool('book', { id })
      t.equal(result.isError, true, `HTTP ${id} is a tool error`)
      return (result.content as Array<{ text: string }>).map((c) => c.text).join('\n')
    }
    t.equal(await text(404), 'HTTP 404 Not Found: no book has id 404', 'a 4xx keeps the route\'s message')
    t.equal(await text(409), 'HTTP 409 Conflict: the shelf is locked', 'a text 4xx too')
    const invalid = await text(0.5 as number)
    t.match(invalid, /^HTTP 400 Bad Request: params\/id must be integer/, 'the route\'s own validation message is a 4xx too')
    for (const id of [500, 503]) {
      const said = await text(id)
      t.equal(said, `The tool "book" failed (HTTP ${id})`, `a ${id} carries no route text`)
      t.notMatch(said, /db-7/)
    }
    const thrown = await client.callTool('thrower')
    t.equal((thrown.content as Array<{ text: string }>)[0]?.text,
      toolErrors === 'mask' ? 'Tool "thrower" failed with an internal error' : 'defined tool internals',
      'a tool handler\'s throw follows security.toolErrors')
  })
}
