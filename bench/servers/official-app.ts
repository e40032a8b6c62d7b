/**
 * The official stack's HTTP face, shared by the `official` and
 * `official-zod` servers: `@modelcontextprotocol/fastify` (app with its DNS
 * rebinding hooks) + `createMcpHandler` (one `McpServer` per request from
 * `factory`, as its docs prescribe, stateless legacy fallback).
 *
 * `@modelcontextprotocol/node`'s `toNodeHandler` is not installed, so the
 * route bridges Fastify to the web-standard `fetch` face itself: headers
 * copied, the body Fastify already parsed passed as `parsedBody`, the
 * `Response` written back whole.
 */
import { createMcpFastifyApp } from '@modelcontextprotocol/fastify'
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server'
import type { FastifyInstance } from 'fastify'

export function officialApp (factory: () => McpServer): FastifyInstance {
  const handler = createMcpHandler(factory)
  const app = createMcpFastifyApp()
  app.post('/mcp', async (request, reply) => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value)
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    }
    const webRequest = new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, { method: 'POST', headers })
    const response = await handler.fetch(webRequest, { parsedBody: request.body })
    reply.code(response.status)
    response.headers.forEach((value, name) => { reply.header(name, value) })
    return reply.send(Buffer.from(await response.arrayBuffer()))
  })
  app.addHook('onClose', async () => { await handler.close() })
  return app as unknown as FastifyInstance
}
