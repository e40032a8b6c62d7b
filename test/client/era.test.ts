/**
 * Era detection from the probe's answer: the 2026-07-28 Streamable HTTP
 * backward-compatibility rules, one row each.
 */
import t from 'tap'
import { classifyProbe } from '../../lib/client/era.js'
import type { JsonRpcResponse } from '../../lib/client/exchange.js'

const err = (code: number, data?: unknown): JsonRpcResponse => ({ kind: 'error', error: { code, message: 'm', data } })
const V = '2026-07-28'

t.test('classification table', async t => {
  const rows: Array<[string, number, JsonRpcResponse | null, string, string?]> = [
    // [name, status, response, verdict, reason or version]
    ['200 with a result', 200, { kind: 'result', result: {} }, 'result'],
    ['a result on a 4xx is not trusted', 400, { kind: 'result', result: {} }, 'error'],
    ['-32022 naming another modern version we speak', 400, err(-32022, { supported: ['2026-07-28'], requested: '2099-01-01' }), 'retry-modern', '2026-07-28'],
    ['-32022 naming only the version already tried', 400, err(-32022, { supported: [V], requested: V }), 'modern-error'],
    ['-32022 naming only unknown versions', 400, err(-32022, { supported: ['2030-01-01'], requested: V }), 'modern-error'],
    ['-32022 without data', 400, err(-32022), 'modern-error'],
    ['-32022 naming only legacy versions', 400, err(-32022, { supported: ['1999-01-01', '2025-06-18', '2025-11-25'], requested: V }), 'legacy', 'legacy-version-offered'],
    ['-32022 modern preferred over legacy', 400, err(-32022, { supported: ['2025-11-25', '2026-07-28'], requested: '2099-01-01' }), 'retry-modern', '2026-07-28'],
    ['-32022 on a 200', 200, err(-32022, { supported: [], requested: V }), 'modern-error'],
    ['-32020 header mismatch', 400, err(-32020), 'modern-error'],
    ['-32021 missing client capability', 400, err(-32021), 'modern-error'],
    ['-32602 on 400', 400, err(-32602), 'modern-error'],
    ['-32601 on 404', 404, err(-32601), 'modern-error'],
    ['-32601 on 200 (a legacy server that does not know the method)', 200, err(-32601), 'legacy', 'non-modern-error'],
    ['-32601 on 400', 400, err(-32601), 'legacy', 'non-modern-error'],
    ['-32602 on 200', 200, err(-32602), 'legacy', 'non-modern-error'],
    ['-32000 on 400 (SDK v1 "Bad Request")', 400, err(-32000), 'legacy', 'non-modern-error'],
    ['-32600 on 400', 400, err(-32600), 'legacy', 'non-modern-error'],
    ['-32700 on 400', 400, err(-32700), 'legacy', 'non-modern-error'],
    ['400 with no JSON-RPC body', 400, null, 'legacy', 'http-status'],
    ['404 with no JSON-RPC body', 404, null, 'legacy', 'http-status'],
    ['405 with no JSON-RPC body', 405, null, 'legacy', 'http-status'],
    ['401 with no JSON-RPC body', 401, null, 'legacy', 'http-status'],
    ['500 with no body', 500, null, 'error'],
    ['503 with a JSON-RPC error', 503, err(-32603), 'error'],
    ['500 with -32020 is still modern', 500, err(-32020), 'modern-error'],
    ['200 with no JSON-RPC body', 200, null, 'error'],
    ['202 with no body', 202, null, 'error'],
    ['302 with no body', 302, null, 'error']
  ]
  for (const [name, status, response, verdict, extra] of rows) {
    const got = classifyProbe(status, response, response?.kind === 'error' && (response.error.data as any)?.requested !== undefined ? (response.error.data as any).requested : V)
    t.equal(got.verdict, verdict, name)
    if (got.verdict === 'retry-modern') t.equal(got.version, extra, `${name}: version`)
    if (got.verdict === 'legacy') {
      t.equal(got.reason, extra, `${name}: reason`)
      t.type(got.detail, 'string')
      if (got.reason === 'legacy-version-offered') t.equal(got.version, '2025-06-18', `${name}: first legacy version we speak`)
      else t.equal(got.version, null)
    }
  }
})
