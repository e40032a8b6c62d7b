/**
 * The client-request options, checked at registration: `requestState.secret`
 * (32 bytes or more, one or a rotation list), `requestState.ttlMs` and
 * `limits.clientRequestTimeoutMs` (positive integers in range). A bad value
 * fails `register` with FST_MCP_INVALID_OPTION naming it; good values are used.
 */
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcpCapabilities, { type McpCapabilitiesOptions } from '../../lib/index.js'
import { resolveOptions } from '../../lib/options.js'
import { SERVER_INFO } from '../helpers/mcp-fixtures.js'
import { clientRequestModule } from './fixtures.js'

const base = { server: clientRequestModule(), serverInfo: SERVER_INFO }

async function rejects (t: Test, options: Record<string, unknown>, name: string): Promise<void> {
  const app = Fastify()
  t.teardown(() => app.close())
  const error = await app.register(mcpCapabilities, { ...base, ...options } as McpCapabilitiesOptions).ready().then(() => undefined, (e: unknown) => e)
  t.match(error, { code: 'FST_MCP_INVALID_OPTION', message: new RegExp(`"${name.replace(/\./g, '\\.')}"`) }, `${JSON.stringify(options)?.slice(0, 80)} is refused`)
  t.ok(error instanceof TypeError, 'a TypeError')
}

t.test('requestState.secret: at least 32 bytes, a string, a Buffer or a non-empty list of them', async (t) => {
  for (const secret of ['short', 'x'.repeat(31), Buffer.alloc(31), [], ['x'.repeat(32), 'short'], 42, null, { key: 'x'.repeat(32) }, [null]]) {
    await rejects(t, { requestState: { secret } }, 'requestState.secret')
  }
  const keys = resolveOptions({ ...base, requestState: { secret: ['é'.repeat(16), Buffer.alloc(40, 7)] } }).requestState.secret
  t.strictSame(keys.map((k) => k.length), [32, 40], '16 two-byte characters are 32 bytes; both kept, in order')
  const given = Buffer.alloc(32, 1)
  const copied = resolveOptions({ ...base, requestState: { secret: given } }).requestState.secret[0]
  given.fill(2)
  t.equal(copied?.[0], 1, 'the secret is copied: changing the caller\'s Buffer later changes nothing')
})

t.test('requestState.secret default: a random 32-byte secret per endpoint', async (t) => {
  const a = resolveOptions(base).requestState.secret
  const b = resolveOptions(base).requestState.secret
  t.equal(a.length, 1)
  t.equal(a[0]?.length, 32)
  t.notOk(a[0]?.equals(b[0] as Buffer), 'two endpoints get different secrets')
  t.ok(Object.isFrozen(a), 'the list is frozen')
})

t.test('requestState.ttlMs and limits.clientRequestTimeoutMs: positive integers (milliseconds)', async (t) => {
  for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1000', null, true]) {
    await rejects(t, { requestState: { ttlMs: value } }, 'requestState.ttlMs')
    await rejects(t, { limits: { clientRequestTimeoutMs: value } }, 'limits.clientRequestTimeoutMs')
  }
  await rejects(t, { limits: { clientRequestTimeoutMs: 2 ** 31 } }, 'limits.clientRequestTimeoutMs')
  const defaults = resolveOptions(base)
  t.equal(defaults.requestState.ttlMs, 900_000, 'state lives 15 minutes by default')
  t.equal(defaults.limits.clientRequestTimeoutMs, 60_000, 'legacy requests wait a minute by default')
  const set = resolveOptions({ ...base, requestState: { ttlMs: 5000 }, limits: { clientRequestTimeoutMs: 2 ** 31 - 1 } })
  t.equal(set.requestState.ttlMs, 5000)
  t.equal(set.limits.clientRequestTimeoutMs, 2 ** 31 - 1)
})

t.test('an unknown key\'s error lists the known ones of its group, and the near miss', async (t) => {
  const error = (() => { try { resolveOptions({ ...base, requestState: { secrets: 'x' } }) } catch (e) { return e } })()
  t.match(error, { code: 'FST_MCP_INVALID_OPTION', message: 'Invalid option "requestState.secrets": unknown option (known: secret, ttlMs); did you mean "secret"?' })
})
