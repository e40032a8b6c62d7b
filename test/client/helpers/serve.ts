/**
 * Test servers on 127.0.0.1, port 0: a node:http listener, or a web-standard
 * `fetch` handler bridged onto one (the shape the official SDK v2 handler has).
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { once } from 'node:events'
import { Readable } from 'node:stream'

export interface Served {
  url: string
  close: () => Promise<void>
}

export async function serveNode (handler: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<Served> {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch(err => {
      if (!res.headersSent) res.writeHead(500)
      res.end(String(err))
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no port')
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>(resolve => server.close(() => resolve()))
    }
  }
}

/** Serve a `(Request) => Promise<Response>` handler over node:http. */
export async function serveFetch (handler: (request: Request) => Promise<Response>): Promise<Served> {
  return await serveNode(async (req, res) => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(name, value)
      else if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD'
    const init: RequestInit & { duplex?: 'half' } = { method: req.method, headers }
    if (hasBody) {
      init.body = Readable.toWeb(req) as unknown as ReadableStream
      init.duplex = 'half'
    }
    const response = await handler(new Request(`http://127.0.0.1${req.url ?? '/'}`, init))
    res.writeHead(response.status, Object.fromEntries(response.headers))
    if (response.body !== null) {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) res.write(chunk)
    }
    res.end()
  })
}

export async function readBody (req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
