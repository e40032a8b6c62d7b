/**
 * Every log line the plugin writes has ONE `level` key (pino's): a field of
 * our own named `level` beside it (`"level":40,…,"level":"warn"`) made jq and
 * pino-pretty read the wrong one.
 */
import Fastify from 'fastify'
import { Writable } from 'node:stream'
import t from 'tap'
import mcpCapabilities, { type HandlerContext, type LogLevel } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

t.test('a dropped log message of an unknown level is logged with one level key', async (t) => {
  const server = {
    listTools: () => ({ tools: [{ name: 'odd', inputSchema: { type: 'object' } }] }),
    callTool (_params: unknown, ctx: HandlerContext) {
      ctx.log('loud' as LogLevel, 'x') // JavaScript callers can pass anything
      return { content: [] }
    }
  }
  // The raw text of each line: JSON.parse would keep only the last of two equal keys.
  const lines: string[] = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter((line) => line !== ''))
      done()
    }
  })
  const app = Fastify({ logger: { level: 'info', stream } })
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server, serverInfo: { name: 'x', version: '1' } })
  await injectClient(app).callTool('odd', {}, { logLevel: 'debug' })
  const logs = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  const dropped = logs.find((line) => line.msg === 'MCP log message with an unknown level dropped')
  t.match(dropped, { level: 40, mcpLevel: 'loud' }, 'pino\'s numeric level, the MCP level under its own name')
  for (const line of lines) t.equal(line.match(/"level":/g)?.length, 1, line.slice(0, 120))
})
