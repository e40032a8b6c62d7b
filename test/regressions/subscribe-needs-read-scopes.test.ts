// Guards the fourth hostile review's subscription finding: with
// authorization, a resource's `scopes` guarded reading it but not
// subscribing to it. A caller without them could subscribe (legacy
// `resources/subscribe` on a session) or name it in a listen's
// `resourceSubscriptions` and hear `notifications/resources/updated`: that
// the resource exists and when it changes. Subscribing now needs what
// reading needs; an unsubscribe needs nothing.
import Fastify, { type FastifyInstance } from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineResources } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { modernHeaders, modernMeta } from '../streams/helpers.js'

const LEGACY = '2025-11-25'
const server = defineResources({
  payroll: { uri: 'notes://payroll', scopes: ['payroll:read'], read: () => 'rates' },
  lunch: { uri: 'notes://lunch', read: () => 'soup' },
  team: { uriTemplate: 'notes://team/{name}', scopes: ['team:read'], read: ({ name }) => `about ${String(name)}` }
})

async function start (t: Test, brief = false): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server,
    serverInfo: { name: 'subscribe-scopes', version: '1.0.0' },
    sessions: true,
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      verifyAccessToken: (token) => ({ subject: token, scopes: token === 'hr' ? ['payroll:read', 'team:read'] : [], ...(brief ? { expiresAt: Date.now() / 1000 + 1 } : {}) })
    }
  })
  return app
}

t.test('legacy resources/subscribe needs the resource\'s read scopes; unsubscribe needs none', async (t) => {
  const app = await start(t)
  const client = mcpClient(t, app)
  for (const token of ['staff', 'hr']) {
    const authorization = `Bearer ${token}`
    const session = (await client.initialize(LEGACY, { headers: { authorization } })).headers['mcp-session-id'] as string
    t.type(session, 'string', `${token}: a session was issued`)
    const call = (id: number, method: string, uri: string) => client.legacy(method, { uri }, { id, protocolVersion: LEGACY, headers: { authorization, 'mcp-session-id': session } })
    const read = await call(2, 'resources/read', 'notes://payroll')
    const subscribed = await call(3, 'resources/subscribe', 'notes://payroll')
    const templated = await call(4, 'resources/subscribe', 'notes://team/ada')
    if (token === 'staff') {
      t.equal(read.status, 403, 'staff may not read payroll')
      t.equal(subscribed.status, 403, 'nor subscribe to it')
      t.equal(subscribed.json.id, 3)
      t.equal(templated.status, 403, 'nor to a templated resource that needs a scope')
    } else {
      t.equal(read.status, 200)
      t.strictSame(subscribed.json.result, {}, 'hr subscribes')
      t.strictSame(templated.json.result, {})
    }
    t.strictSame((await call(5, 'resources/subscribe', 'notes://lunch')).json.result, {}, `${token}: a resource without scopes needs none`)
    t.strictSame((await call(6, 'resources/unsubscribe', 'notes://payroll')).json.result, {}, `${token}: unsubscribing is never refused`)
  }
})

t.test('a listen naming a resource needs its read scopes', async (t) => {
  const app = await start(t)
  const client = mcpClient(t, app)
  for (const uris of [['notes://payroll'], ['notes://lunch', 'notes://team/ada']]) {
    const refused = await client.modern('subscriptions/listen', { notifications: { resourceSubscriptions: uris } }, { id: 7, headers: { authorization: 'Bearer staff' } })
    t.equal(refused.status, 403, `staff may not listen to ${uris.join(', ')}`)
    t.equal(refused.json.id, 7)
  }
  t.equal(app.mcp.listenStreams, 0, 'no stream was opened')
  // Allowed listens stay open until their token expires (a second after it was verified), then answer with the
  // acknowledgement; the timer keeps this process alive meanwhile (the stream's own timers do not hold it).
  const brief = await start(t, true)
  const keep = setTimeout(() => {}, 10_000)
  t.teardown(() => clearTimeout(keep))
  for (const [token, uris] of [['staff', ['notes://lunch']], ['hr', ['notes://payroll', 'notes://team/ada']]] as const) {
    const opened = await brief.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...modernHeaders('subscriptions/listen'), authorization: `Bearer ${token}` },
      payload: { jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { notifications: { resourceSubscriptions: uris }, _meta: modernMeta() } }
    })
    t.equal(opened.statusCode, 200, `${token} listens to ${uris.join(', ')}`)
    t.match(opened.body, /notifications\/subscriptions\/acknowledged/)
  }
})
