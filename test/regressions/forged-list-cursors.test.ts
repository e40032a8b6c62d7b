/**
 * Issue 36 item 6: a catalogue accepted any cursor naming a sequence number
 * (base64url of `tools:N`), made and kept a page for each, and counted the
 * pages it kept, not their bytes: 400 forged cursors over 2,000 tools of
 * ~1 KiB with `listPageSize: 1000` pinned +427 MiB. Cursors are now sealed
 * (HMAC under a key derived from `requestState.secret`): forged ones answer
 * -32602, a cursor issued by one instance opens on another given the same
 * secret and catalogue, and the pages kept are bounded in bytes.
 */
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { definePrompts, defineTools, type ToolDefinition } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'
import { Catalog, type CatalogEntry, MAX_KEPT_PAGE_BYTES } from '../../lib/definitions/catalog.js'
import { CursorSeal } from '../../lib/definitions/cursor-seal.js'
import { MB, settledBytes } from './helpers.js'

const SECRET = 'a deployment secret of at least thirty-two bytes'

function tools (count: number): Record<string, ToolDefinition> {
  const many: Record<string, ToolDefinition> = {}
  for (let i = 0; i < count; i++) many[`t${i}`] = { description: `tool ${i}`, handler: () => ({ content: [] }) }
  return many
}

async function serve (t: Test, secret?: string): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, {
    serverInfo: { name: 'cursors', version: '1.0.0' },
    server: { ...defineTools(tools(25)), ...definePrompts({ p1: { handler: () => 'a' }, p2: { handler: () => 'b' }, p3: { handler: () => 'c' } }) },
    limits: { listPageSize: 2 },
    ...(secret === undefined ? {} : { requestState: { secret } })
  })
  await app.ready()
  return app
}

t.test('forged cursors answer -32602; issued ones page through', async (t) => {
  const app = await serve(t)
  for (const era of ['legacy', 'modern'] as const) {
    const client = injectClient(app, { era })
    const first = await client.listTools()
    t.type(first.nextCursor, 'string')
    const next = await client.listTools(first.nextCursor)
    t.strictSame(next.tools.map((tool) => tool.name), ['t2', 't3'])
    const forged = [
      // The old, unsealed form, naming a page that exists.
      Buffer.from('tools:10', 'latin1').toString('base64url'),
      // The sealed form with the number changed, and a tag of another list.
      (first.nextCursor as string).replace(/^[^.]+/, '9'),
      (await client.listPrompts()).nextCursor as string,
      (first.nextCursor as string) + 'A',
      'x'.repeat(100)
    ]
    for (const cursor of forged) {
      await t.rejects(client.listTools(cursor), { code: -32602, message: /unknown cursor/ }, `${era}: ${cursor.slice(0, 16)}`)
    }
  }
})

t.test('instances sharing requestState.secret and the catalogue accept each other\'s cursors', async (t) => {
  const a = await serve(t, SECRET)
  const b = await serve(t, SECRET)
  const other = await serve(t, SECRET + ' of another deployment')
  const alone = await serve(t)
  const cursor = (await injectClient(a).listTools()).nextCursor as string
  t.strictSame((await injectClient(b).listTools(cursor)).tools.map((tool) => tool.name), ['t2', 't3'], 'issued by A, served by B')
  await t.rejects(injectClient(other).listTools(cursor), { code: -32602 }, 'another secret')
  await t.rejects(injectClient(alone).listTools(cursor), { code: -32602 }, 'a random key of another process')
})

t.test('the pages a catalogue keeps are bounded in bytes', async (t) => {
  // 2,000 entries of ~1 KiB, pages of 1,000: every page is ~1 MiB. The cursors are
  // issued ones (a catalogue that changed while clients paged issues many).
  const seal = new CursorSeal([Buffer.from(SECRET)])
  const catalog = new Catalog<CatalogEntry>('tool', seal)
  const pad = 'x'.repeat(1000)
  for (let i = 0; i < 2000; i++) {
    const listed = Object.freeze({ name: `t${i}`, description: pad })
    catalog.add({ name: `t${i}`, listed, json: JSON.stringify(listed), view: 'tools', origin: 'test' })
  }
  catalog.page('tools', undefined, 1000)
  const before = await settledBytes()
  const pages = 150
  for (let n = 1; n <= pages; n++) catalog.page('tools', seal.seal('tools', n), 1000)
  const held = await settledBytes() - before
  // Kept by count (the old bound of 1,024 pages), these would hold ~150 MiB.
  t.ok(held < MAX_KEPT_PAGE_BYTES + 8 * MB, `held ${(held / MB).toFixed(1)} MiB for ${pages} pages of ~1 MiB`)
  const again = catalog.page('tools', seal.seal('tools', pages), 1000)
  t.equal(catalog.page('tools', seal.seal('tools', pages), 1000), again, 'the latest pages are still kept')
})

t.test('a seal keys its cursors with the secrets as given, even if the caller then reuses its buffers', async (t) => {
  const given = Buffer.from(SECRET)
  const seal = new CursorSeal([given])
  given.fill(0)
  t.equal(new CursorSeal([Buffer.from(SECRET)]).open(seal.seal('tools', 7), 'tools'), 7, 'sealed under SECRET')
})
