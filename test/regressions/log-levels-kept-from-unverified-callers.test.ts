// Guards issue 36 item 14: the legacy log levels were one table of 10 000
// callers, least recently used forgotten first, so 10 001 `logging/setLevel`
// calls with made-up credentials pushed a real caller's level out (that
// caller then got no log messages). Decision: principals (named by a token
// the endpoint verified), credential digests and the anonymous caller are
// kept apart; made-up credentials only push out other credential digests.
import t from 'tap'
import { defineTools, type HandlerContext } from '../../lib/index.js'
import { injectClient, type InjectClient } from '../../lib/testing/index.js'
import { CallerLogLevels, DEFAULT_MAX_LOG_LEVEL_CALLERS } from '../../lib/endpoint/caller-log-levels.js'
import { principalOf } from '../../lib/auth/verified-token.js'
import { serve } from '../definitions/helpers.js'

const ISSUER = 'https://auth.example.com'

const tools = defineTools({
  chatty: {
    handler: (_args: Record<string, never>, ctx: HandlerContext) => {
      for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, `at ${level}`)
      return 'done'
    }
  }
})

async function levelsOf (client: InjectClient<'legacy'>): Promise<string[]> {
  const levels: string[] = []
  await client.callTool('chatty', {}, { onNotification: (n) => { if (n.method === 'notifications/message') levels.push(String(n.params?.level)) } })
  return levels
}

t.test('a flood of made-up credentials keeps a verified caller\'s level', async (t) => {
  const { app } = await serve(t, tools, {
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: [ISSUER],
      // `alice` is a user; any `key-…` is accepted but names nobody, so its caller is a digest of the header.
      verifyAccessToken (token: string) {
        if (token === 'alice') return { subject: 'alice', issuer: ISSUER, scopes: [] }
        if (token.startsWith('key-')) return { issuer: ISSUER, scopes: [] }
        return null
      }
    }
  })
  const alice = injectClient(app, { era: 'legacy', headers: { authorization: 'Bearer alice' } })
  await alice.setLogLevel('error')
  t.strictSame(await levelsOf(alice), ['error'])
  const flood = DEFAULT_MAX_LOG_LEVEL_CALLERS + 1
  const setBy = (i: number) => injectClient(app, { era: 'legacy', headers: { authorization: `Bearer key-${i}` } }).setLogLevel('debug')
  // key-0 first (the oldest is what the table forgets), then the rest a few at a time.
  await setBy(0)
  for (let i = 1; i < flood; i += 20) {
    await Promise.all(Array.from({ length: Math.min(20, flood - i) }, (_, j) => setBy(i + j)))
  }
  t.strictSame(await levelsOf(alice), ['error'], `still set after ${flood} other credentials set theirs`)
  const last = injectClient(app, { era: 'legacy', headers: { authorization: `Bearer key-${flood - 1}` } })
  t.strictSame(await levelsOf(last), ['debug', 'info', 'warning', 'error'], 'the newest credential keeps its level too')
  const first = injectClient(app, { era: 'legacy', headers: { authorization: 'Bearer key-0' } })
  t.strictSame(await levelsOf(first), [], 'the oldest made-up credential is what was forgotten')
})

t.test('the table: digests push out digests only; anonymous has its own slot', async (t) => {
  const levels = new CallerLogLevels(2)
  const alice = principalOf(ISSUER, 'alice', undefined) as string
  const app = principalOf(ISSUER, undefined, 'app-1') as string
  levels.set(alice, 'error')
  levels.set(app, 'info')
  levels.set('anonymous', 'warning')
  for (let i = 0; i < 10; i++) levels.set(`sha256:made-up-${i}`, 'debug')
  t.equal(levels.get(alice), 'error')
  t.equal(levels.get(app), 'info')
  t.equal(levels.get('anonymous'), 'warning')
  t.equal(levels.get('sha256:made-up-0'), undefined, 'an old digest is forgotten')
  t.equal(levels.get('sha256:made-up-9'), 'debug')
  t.equal(levels.size, 5, 'two principals, two digests, anonymous')
  // Principals are bounded too, among themselves.
  levels.set(principalOf(ISSUER, 'bob', undefined) as string, 'debug')
  t.equal(levels.get(alice), undefined, 'the least recently used principal gives way to another principal')
  levels.clear()
  t.equal(levels.size, 0)
})
