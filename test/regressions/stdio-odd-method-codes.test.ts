// Guards the fourth hostile review's stdio finding: the transport mirrored a
// modern message's version and method into headers in the `=?base64?` form
// when they were not plain header text (a non-ASCII method, a trailing
// space), and the endpoint, which compares those headers as they are,
// answered -32020 "Header mismatch" about headers the client never sent,
// where the same body over HTTP gets -32601 or -32022. They are mirrored
// verbatim now (they never travel on a wire); the transport's cache of
// header sets is keyed so two of them never share an entry.
import { PassThrough } from 'node:stream'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { defineTools } from '../../lib/index.js'
import { serveStdio } from '../../lib/stdio/serve-stdio.js'
import { collectMessages, eventually } from '../stdio/helpers.js'

const meta = (version: string) => ({ 'io.modelcontextprotocol/protocolVersion': version, 'io.modelcontextprotocol/clientCapabilities': {} })

t.test('odd methods and versions over stdio get the codes HTTP gives, each with its id', async (t) => {
  const app = Fastify()
  await app.register(mcpCapabilities, { server: defineTools({ echo: { handler: () => ({ content: [] }) } }), serverInfo: { name: 'odd', version: '1.0.0' } })
  const input = new PassThrough()
  const output = new PassThrough()
  const messages = collectMessages(output)
  const server = await serveStdio(app, { input, output, handleSignals: false })
  t.teardown(() => server.close())
  const cases: Array<[string, string, number]> = [
    ['tools/lisé', '2026-07-28', -32601],
    ['tools/list ', '2026-07-28', -32601],
    ['tools/list\n', '2026-07-28', -32601],
    ['tools/list', '2026-07-28 ', -32022],
    ['tools/list', 'é', -32022],
    // Joined by a newline these two would name one header set: "2026-07-28\nx\ny" and "2026-07-28\nx\ny".
    ['x\ny', '2026-07-28', -32601],
    ['y', '2026-07-28\nx', -32022]
  ]
  cases.forEach(([method, version], i) => input.write(JSON.stringify({ jsonrpc: '2.0', id: i + 1, method, params: { _meta: meta(version) } }) + '\n'))
  await eventually(() => messages.length === cases.length)
  cases.forEach(([method, version, code], i) => {
    const answer = messages.find((m) => m.id === i + 1)
    t.equal(answer?.error?.code, code, `${JSON.stringify(method)} at ${JSON.stringify(version)}`)
  })
})
