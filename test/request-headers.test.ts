import fc from 'fast-check'
import t from 'tap'
import { findHeaderMismatch } from '../lib/endpoint/request-headers.js'

t.test('remembered mismatch messages never mix up two pairs of values', async (t) => {
  const headers = (method: string, name: string) => ({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': method, 'mcp-name': '=?base64?' + Buffer.from(name).toString('base64') + '?=' })
  t.doesNotThrow(() => fc.assert(fc.property(fc.array(fc.tuple(fc.string(), fc.string(), fc.string(), fc.string()), { maxLength: 60 }), (cases) => {
    for (const [headerMethod, bodyMethod, headerName, bodyName] of [...cases, ...cases]) {
      const methodMessage = findHeaderMismatch(headers(headerMethod, headerName), '2026-07-28', bodyMethod, bodyName)
      if (headerMethod !== bodyMethod) {
        if (methodMessage !== `Header mismatch: Mcp-Method header ${JSON.stringify(headerMethod)} does not match body method ${JSON.stringify(bodyMethod)}`) return false
        continue
      }
      if (headerName !== bodyName && methodMessage !== `Header mismatch: Mcp-Name header ${JSON.stringify(headerName)} does not match body value ${JSON.stringify(bodyName)}`) return false
    }
    // The same pairs split differently: 'a\nb' + 'c' against 'a' + 'b\nc'.
    const one = findHeaderMismatch(headers('x', 'a\nb'), '2026-07-28', 'x', 'c')
    const two = findHeaderMismatch(headers('x', 'a'), '2026-07-28', 'x', 'b\nc')
    return one !== two && (one ?? '').includes('"a\\nb"') && (two ?? '').includes('"b\\nc"')
  })), 'fast-check finds no pair of values whose remembered message is another pair\'s')
})
