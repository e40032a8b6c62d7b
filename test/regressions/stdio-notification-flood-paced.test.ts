// Guards the fourth hostile review's stdio finding: reading stdin paused at
// `maxInFlight` requests, but notifications and answers to the server's
// questions were not counted, so a host sending them faster than the app
// served them had every one in flight at once: behind an async onRequest
// hook (a token check, a rate limiter) 50,000 notifications held ~260 MB.
// Now every message counts against `maxInFlight`.
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { eventually } from '../stdio/helpers.js'

const MAX_IN_FLIGHT = 8
const SENT = 1000

t.test('a notification flood behind a slow hook: at most maxInFlight in flight, every one served once released', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: defineTools({ echo: { handler: () => ({ content: [] }) } }), serverInfo: { name: 'flood', version: '1.0.0' } })
  let release: () => void = () => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  let entered = 0
  let served = 0
  app.addHook('onRequest', async () => {
    entered++
    await gate
  })
  app.addHook('onResponse', async () => { served++ })
  const input = new PassThrough()
  const output = new PassThrough()
  output.resume()
  const server = await serveStdio(app, { input, output, maxInFlight: MAX_IN_FLIGHT, handleSignals: false })
  t.teardown(() => server.close())
  // Written at once, without waiting for the input to drain: the transport decides how many it takes in.
  input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }).concat('\n').repeat(SENT))
  await eventually(() => entered >= MAX_IN_FLIGHT)
  // Let every line the reader would take reach the hook.
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
  t.equal(entered, MAX_IN_FLIGHT, 'reading paused with maxInFlight notifications in flight')
  release()
  await eventually(() => served === SENT)
  t.equal(entered, SENT, 'every notification reached the app once released')
})
