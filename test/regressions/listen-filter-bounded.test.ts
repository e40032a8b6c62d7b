// Guards the fourth hostile review's listen finding: `subscriptions/listen`
// took any number of `resourceSubscriptions` and indexed each for the
// stream's life (~70 bytes of heap per URI: 40,000 short URIs held 2.7 MB
// per stream, measured, and 1000 streams are allowed), and a filter whose
// acknowledgement passed `limits.maxStreamBufferBytes` dropped the
// connection at its first write, the request answered with nothing. Now a
// listen request names at most 1000 URIs, and one whose acknowledgement
// cannot be sent is answered 400 with -32602 and its id.
import { request as httpRequest } from 'node:http'
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities from '../../lib/index.js'
import { MAX_LISTEN_URIS } from '../../lib/streams/subscriptions.js'
import { fullModule, SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { modernHeaders, modernMeta } from '../helpers/mcp-inject.js'

async function start (t: Test): Promise<{ app: FastifyInstance, port: number }> {
  const app = Fastify({ forceCloseConnections: true })
  await app.register(mcpCapabilities, { server: fullModule(), serverInfo: SERVER_INFO, limits: { listen: { keepAliveMs: 0 } } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => app.close())
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return { app, port: address.port }
}

interface FirstAnswer { status: number, text: string }

/** A listen request over a real connection: the status and the first bytes of the answer (an error body, or the stream's first event); rejects when the connection is dropped unanswered. */
function listen (port: number, id: number, resourceSubscriptions: string[]): Promise<FirstAnswer> {
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions }, _meta: modernMeta() } })
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent: false, headers: { ...modernHeaders('subscriptions/listen'), 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
        // An SSE stream stays open: its first whole event is the answer.
        if (res.headers['content-type'] === 'text/event-stream' && text.includes('\n\n')) {
          req.destroy()
          resolve({ status: res.statusCode ?? 0, text })
        }
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

const uris = (count: number, length: number): string[] => Array.from({ length: count }, (_, i) => 'notes://' + String(i).padStart(length - 8, '0'))

t.test('more than MAX_LISTEN_URIS resource URIs: 400, -32602, the request id; no stream opened', async (t) => {
  const { app, port } = await start(t)
  const answer = await listen(port, 41, uris(MAX_LISTEN_URIS + 1, 16))
  t.equal(answer.status, 400)
  const body = JSON.parse(answer.text)
  t.equal(body.id, 41)
  t.equal(body.error.code, -32602)
  t.match(body.error.message, /at most 1000 resources/)
  t.equal(app.mcp.listenStreams, 0)
})

t.test('an acknowledgement longer than maxStreamBufferBytes: answered 400 with -32602 and the id, not a dropped connection', async (t) => {
  const { app, port } = await start(t)
  // 100 URIs of 3000 characters: ~300 KB to acknowledge, past the 256 KiB default.
  const answer = await listen(port, 42, uris(100, 3000))
  t.equal(answer.status, 400)
  const body = JSON.parse(answer.text)
  t.equal(body.id, 42)
  t.equal(body.error.code, -32602)
  t.match(body.error.message, /maxStreamBufferBytes/)
  t.equal(app.mcp.listenStreams, 0)
})

t.test('MAX_LISTEN_URIS URIs within the bound: the stream opens and acknowledges every one', async (t) => {
  const { port } = await start(t)
  const answer = await listen(port, 43, uris(MAX_LISTEN_URIS, 32))
  t.equal(answer.status, 200)
  const event = JSON.parse(answer.text.slice(answer.text.indexOf('data: ') + 6, answer.text.indexOf('\n\n')))
  t.equal(event.method, 'notifications/subscriptions/acknowledged')
  t.equal(event.params.notifications.resourceSubscriptions.length, MAX_LISTEN_URIS)
})
