/**
 * A route-backed tool's answer is read as a stream and the route's request
 * aborted once it passes `maxResponseBytes` (issue 36, item 12): the answer
 * was buffered whole first (a 24 MiB stream with a 64 KiB cap held the 24
 * MiB; an endless stream grew the heap without bound). The stream here
 * (8 MiB, so that the test stays bounded without the fix too) is cut after
 * about the cap and its source destroyed.
 */
import { Readable } from 'node:stream'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

const CHUNK = 16 * 1024
const CAP = 64 * 1024
/** What the source would make if read to its end. */
const SOURCE_BYTES = 8 * 1024 * 1024

t.test('a long streamed answer is cut at maxResponseBytes and its source destroyed', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: {},
    serverInfo: { name: 'streamed-answer', version: '1.0.0' },
    routes: { maxResponseBytes: CAP },
    limits: { handlerTimeoutMs: 5000 }
  })
  let produced = 0
  let destroyed: () => void = () => {}
  const sourceDestroyed = new Promise<void>((resolve) => { destroyed = resolve })
  app.get('/feed', { config: { mcp: { name: 'feed' } } }, async (_request, reply) => {
    const source = new Readable({
      read () {
        if (produced >= SOURCE_BYTES) return this.push(null)
        produced += CHUNK
        this.push(Buffer.alloc(CHUNK, 'x'))
      },
      destroy (err, callback) {
        destroyed()
        callback(err)
      }
    })
    return reply.type('text/plain').send(source)
  })
  app.get('/small', { config: { mcp: { name: 'small' } } }, async (_request, reply) => reply.type('text/plain').send(Readable.from(['a', 'b', 'c'])))
  await app.ready()
  const client = injectClient(app, { era: 'modern' })
  const result = await client.callTool('feed', {})
  t.equal(result.isError, true)
  t.match((result.content as Array<{ text: string }>)[0]?.text, `larger than ${CAP} bytes`)
  await sourceDestroyed
  t.ok(produced < 16 * CAP, `the source was read about up to the cap, no further (${produced} bytes made)`)
  t.match(await client.callTool('small', {}), { content: [{ type: 'text', text: 'abc' }] }, 'a streamed answer under the cap is read whole')
})
