// Found by the hostile review of skill serving: a `resources/directory/read`
// cursor was the last child's URI in base64url, and with `filterLists` a page
// is filtered after it is cut, so a page whose last child the caller may not
// see (a hidden skill's root) answered `nextCursor` naming it: decoding the
// cursor gave the URI the filter had just removed. Directory cursors are now
// sealed (lib/definitions/skill-directory-cursor.ts): opaque to the client, opened
// only by the deployment that issued them, and only for the folder they were
// issued for.
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { assertError, mcpClient } from '../helpers/mcp-inject.js'
import { skillMd } from '../skills/helpers.js'

const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

t.test('a directory cursor names nothing the caller may not see', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      'acme/merger-plan': { files: { 'SKILL.md': skillMd('merger-plan') }, scopes: ['merger:read'] },
      'acme/onboarding': { files: { 'SKILL.md': skillMd('onboarding') } },
      'acme/zeta': { files: { 'SKILL.md': skillMd('zeta') } }
    }),
    serverInfo: { name: 'directory-cursor', version: '1.0.0' },
    limits: { listPageSize: 1 },
    authorization: {
      resource: 'https://mcp.example.com/mcp',
      authorizationServers: ['https://as.example.com'],
      filterLists: true,
      verifyAccessToken: (token) => ({ subject: token, scopes: token === 'board' ? ['merger:read'] : [] })
    }
  })
  const client = mcpClient(t, app)
  const pages = async (token: string): Promise<{ seen: string[], cursors: string[] }> => {
    const seen: string[] = []
    const cursors: string[] = []
    let cursor: string | undefined
    do {
      const reply = await client.modern('resources/directory/read', cursor === undefined ? { uri: 'skill://acme' } : { uri: 'skill://acme', cursor }, as(token))
      t.equal(reply.status, 200, `${token}: page ${cursors.length + 1}`)
      seen.push(...reply.json.result.resources.map((r: { uri: string }) => r.uri))
      cursor = reply.json.result.nextCursor
      if (cursor !== undefined) cursors.push(cursor)
    } while (cursor !== undefined && cursors.length < 10)
    return { seen, cursors }
  }
  const guest = await pages('guest')
  t.strictSame(guest.seen, ['skill://acme/onboarding', 'skill://acme/zeta'], 'the hidden skill is not listed')
  t.equal(guest.cursors.length, 2, 'one cursor per page but the last')
  for (const cursor of guest.cursors) {
    for (const text of [Buffer.from(cursor, 'base64url').toString('latin1'), Buffer.from(cursor, 'base64').toString('latin1'), cursor]) {
      t.notMatch(text, /merger|acme|skill:/, 'the cursor names no child, hidden or not')
    }
  }
  t.strictSame((await pages('board')).seen, ['skill://acme/merger-plan', 'skill://acme/onboarding', 'skill://acme/zeta'], 'a caller holding the scope pages through all three')
  // A cursor opens for its folder only, and a forged one (the old format) for none.
  const forged = Buffer.from('d:skill://acme/merger-plan').toString('base64url')
  for (const [uri, cursor] of [['skill://acme/zeta', guest.cursors[0]], ['skill://acme', forged], ['skill://acme', (guest.cursors[0] as string).slice(0, -2)]]) {
    assertError(t, await client.modern('resources/directory/read', { uri, cursor }, as('guest')), { status: 400, code: -32602, id: 1, message: /unknown cursor/ })
  }
})
