/**
 * The server of bench/stdio.ts, in a process of its own: one defined tool,
 * served over Streamable HTTP on 127.0.0.1 (`http`) or over `serveStdio` on
 * this process's stdin and stdout (`stdio`). The parent asks over the IPC
 * channel for this process's CPU time (`cpu`) and its heap after a full
 * collection (`heap`, needs --expose-gc); the HTTP port is told the same way.
 *
 *   node --expose-gc --import tsx bench/stdio-server.ts http|stdio
 */
import Fastify from 'fastify'
import mcpCapabilities, { defineTools, serveStdio } from '../lib/index.js'

const mode = process.argv[2]
if (mode !== 'http' && mode !== 'stdio') throw new Error('usage: stdio-server.ts http|stdio')
if (process.send === undefined) throw new Error('stdio-server.ts is started by bench/stdio.ts, with an IPC channel')
const send = process.send.bind(process)

const app = Fastify()
await app.register(mcpCapabilities, {
  server: defineTools({
    add: {
      description: 'Adds two numbers',
      input: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      handler: ({ a, b }) => `${Number(a) + Number(b)}`
    }
  }),
  serverInfo: { name: 'bench-stdio', version: '1.0.0' }
})

process.on('message', (message: string) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage()
    send({ cpuUs: user + system, systemUs: system })
  } else if (message === 'heap') {
    globalThis.gc?.()
    send({ heapUsed: process.memoryUsage().heapUsed })
  } else if (message === 'exit') {
    void app.close().then(() => process.exit(0))
  }
})

if (mode === 'http') {
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  send({ url: `${address}/mcp` })
} else {
  await serveStdio(app, { handleSignals: false })
  send({ ready: true })
}
