// Guards the method lookup against names inherited from Object.prototype
// (`constructor`, `toString`, `__proto__`, ...): they are unknown methods,
// -32601 (HTTP 404 in the modern era), never a crash answered with a 500.
import t from 'tap'
import { ErrorCode } from '../../../lib/index.js'
import { buildApp } from '../../helpers/mcp-fixtures.js'
import { assertError, mcpClient } from '../../helpers/mcp-inject.js'

const NAMES = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__']
t.test('modern request', async (t) => {
  const app = await buildApp(t)
  for (const method of NAMES) {
    t.test(method, async (t) => {
      assertError(t, await mcpClient(t, app).modern(method, {}, { id: method }), { status: 404, code: ErrorCode.MethodNotFound, id: method })
    })
  }
})

t.test('legacy request', async (t) => {
  const app = await buildApp(t)
  for (const method of NAMES) {
    t.test(method, async (t) => {
      assertError(t, await mcpClient(t, app).legacy(method, {}, { id: method, protocolVersion: '2025-11-25' }),
        { status: 200, code: ErrorCode.MethodNotFound, id: method })
    })
  }
})
