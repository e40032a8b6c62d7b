// Guards the fourth hostile review's stdio finding: reading stdin paused at
// `maxInFlight` requests, but notifications and answers to the server's
// questions were not counted, so a host sending them faster than the app
// served them had every one in flight at once: behind an async onRequest
// hook (a token check, a rate limiter) 50,000 notifications held ~260 MB.
// Now every message counts against `maxInFlight`.
import t from 'tap'
import { defineTools } from '../../lib/index.js'
import { eventually, gatedStdio } from '../stdio/helpers.js'

const MAX_IN_FLIGHT = 8
const SENT = 1000

t.test('a notification flood behind a slow hook: at most maxInFlight in flight, every one served once released', async (t) => {
  const gated = await gatedStdio(t, defineTools({ echo: { handler: () => ({ content: [] }) } }), MAX_IN_FLIGHT)
  // Written at once, without waiting for the input to drain: the transport decides how many it takes in.
  gated.input.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }).concat('\n').repeat(SENT))
  await eventually(() => gated.entered() >= MAX_IN_FLIGHT)
  // Let every line the reader would take reach the hook.
  await gated.settle()
  t.equal(gated.entered(), MAX_IN_FLIGHT, 'reading paused with maxInFlight notifications in flight')
  gated.release()
  await eventually(() => gated.served() === SENT)
  t.equal(gated.entered(), SENT, 'every notification reached the app once released')
})
