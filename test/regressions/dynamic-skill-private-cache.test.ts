// A dynamic skill's files and folders are made per request by content(ctx),
// which may differ from caller to caller, yet a deployment configuring
// `cacheHints.results.cacheScope: 'public'` had them answered public (the
// definition cannot return cache hints of its own): a shared cache could
// hand one caller's files to another. They are now answered private in the
// modern era (lib/definitions/skill-serving.ts `perCaller`), the configured
// ttlMs kept; fixed files keep the configured hints; folder reads and legacy
// results carry no hint fields.
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { defineSkills } from '../../lib/index.js'
import { mcpClient } from '../helpers/mcp-inject.js'
import { skillMd } from '../skills/helpers.js'

async function serve (t: Test) {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    server: defineSkills({
      notes: { files: { 'SKILL.md': skillMd('notes'), 'guide.md': 'the same for everyone' } },
      inbox: {
        frontmatter: { name: 'inbox', description: 'Made per request for its caller' },
        // what a real one does: the caller's own files
        content: (ctx) => ({ instructions: '# inbox\n', files: { 'today/mail.md': `for ${String(ctx.auth?.subject ?? 'anyone')}` } })
      }
    }),
    serverInfo: { name: 'dynamic-private', version: '1.0.0' },
    cacheHints: { results: { ttlMs: 60_000, cacheScope: 'public' } }
  })
  return mcpClient(t, app)
}

t.test('modern: a dynamic skill\'s file reads are private, the configured ttlMs kept; a fixed file keeps the configured hints', async (t) => {
  const client = await serve(t)
  for (const uri of ['skill://inbox/today/mail.md', 'skill://inbox/SKILL.md']) {
    const reply = await client.modern('resources/read', { uri })
    t.equal(reply.status, 200, uri)
    t.equal(reply.json.result?.cacheScope, 'private', `${uri}: private`)
    t.equal(reply.json.result?.ttlMs, 60_000, `${uri}: the configured ttlMs`)
  }
  const fixed = await client.modern('resources/read', { uri: 'skill://notes/guide.md' })
  t.equal(fixed.json.result?.cacheScope, 'public', 'a fixed file: the configured cacheScope')
  t.equal(fixed.json.result?.ttlMs, 60_000, 'and ttlMs')
  // folder reads are not cacheable at all (no hints), dynamic or fixed
  for (const uri of ['skill://inbox', 'skill://inbox/today', 'skill://notes']) {
    const reply = await client.modern('resources/directory/read', { uri })
    t.equal(reply.status, 200, uri)
    t.notOk('cacheScope' in (reply.json.result ?? {}), `${uri}: no cacheScope`)
  }
})

t.test('legacy: a dynamic skill\'s read carries no cache hint fields', async (t) => {
  const client = await serve(t)
  const reply = await client.legacy('resources/read', { uri: 'skill://inbox/today/mail.md' }, { protocolVersion: '2025-11-25' })
  t.equal(reply.status, 200)
  t.ok(Array.isArray(reply.json.result?.contents), 'the file is read')
  t.notOk('cacheScope' in (reply.json.result ?? {}), 'no cacheScope')
  t.notOk('ttlMs' in (reply.json.result ?? {}), 'no ttlMs')
})
