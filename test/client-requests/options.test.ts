/**
 * The client-request options, checked at registration: `requestStateSecret`
 * (32 bytes or more, one or a rotation list), `requestStateTtlMs` and
 * `clientRequestTimeoutMs` (positive integers in range). A bad value fails
 * `register` with FST_MCP_INVALID_OPTION naming it; good values are used.
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
  t.match(error, { code: 'FST_MCP_INVALID_OPTION', message: new RegExp(`"${name}"`) }, `${JSON.stringify(options)?.slice(0, 80)} is refused`)
  t.ok(error instanceof TypeError, 'a TypeError')
}

t.test('requestStateSecret: at least 32 bytes, a string, a Buffer or a non-empty list of them', async (t) => {
  for (const secret of ['short', 'x'.repeat(31), Buffer.alloc(31), [], ['x'.repeat(32), 'short'], 42, null, { key: 'x'.repeat(32) }, [null]]) {
    await rejects(t, { requestStateSecret: secret }, 'requestStateSecret')
  }
  const keys = resolveOptions({ ...base, requestStateSecret: ['é'.repeat(16), Buffer.alloc(40, 7)] }).requestStateKeys
  t.strictSame(keys.map((k) => k.length), [32, 40], '16 two-byte characters are 32 bytes; both keys kept, in order')
  const given = Buffer.alloc(32, 1)
  const copied = resolveOptions({ ...base, requestStateSecret: given }).requestStateKeys[0]
  given.fill(2)
  t.equal(copied?.[0], 1, 'the key is copied: changing the caller\'s Buffer later changes nothing')
})

t.test('requestStateSecret default: a random 32-byte key per endpoint', async (t) => {
  const a = resolveOptions(base).requestStateKeys
  const b = resolveOptions(base).requestStateKeys
  t.equal(a.length, 1)
  t.equal(a[0]?.length, 32)
  t.notOk(a[0]?.equals(b[0] as Buffer), 'two endpoints get different keys')
  t.ok(Object.isFrozen(a), 'the key list is frozen')
})

t.test('requestStateTtlMs and clientRequestTimeoutMs: positive integers (milliseconds)', async (t) => {
  for (const name of ['requestStateTtlMs', 'clientRequestTimeoutMs']) {
    for (const value of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1000', null, true]) {
      await rejects(t, { [name]: value }, name)
    }
  }
  await rejects(t, { clientRequestTimeoutMs: 2 ** 31 }, 'clientRequestTimeoutMs')
  const defaults = resolveOptions(base)
  t.equal(defaults.requestStateTtlMs, 900_000, 'state lives 15 minutes by default')
  t.equal(defaults.clientRequestTimeoutMs, 60_000, 'legacy requests wait a minute by default')
  const set = resolveOptions({ ...base, requestStateTtlMs: 5000, clientRequestTimeoutMs: 2 ** 31 - 1 })
  t.equal(set.requestStateTtlMs, 5000)
  t.equal(set.clientRequestTimeoutMs, 2 ** 31 - 1)
})

t.test('an unknown option\'s error lists the known ones, the new ones included', async (t) => {
  const error = (() => { try { resolveOptions({ ...base, requestStateSecrets: 'x' }) } catch (e) { return e } })()
  t.match(error, { code: 'FST_MCP_INVALID_OPTION', message: /requestStateSecret, requestStateTtlMs, clientRequestTimeoutMs(, \w+)*\)/ })
})
