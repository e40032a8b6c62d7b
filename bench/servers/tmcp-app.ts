/**
 * tmcp (npm `tmcp` with `@tmcp/transport-http` and `@tmcp/adapter-zod`), the
 * fastest other MCP framework on Node we know of, on the same HTTP face as
 * the others: a Fastify app whose `/mcp` route hands the request to tmcp's
 * web-standard `respond` and writes its `Response` back whole. JSON answers
 * (`disableSse`), as the plugin gives; one server for all requests, as
 * tmcp's docs set it up; the body is passed on as the bytes received.
 */
import { ZodJsonSchemaAdapter } from '@tmcp/adapter-zod'
import { HttpTransport } from '@tmcp/transport-http'
import Fastify from 'fastify'
import { McpServer } from 'tmcp'
import type { z } from 'zod'
import { serve } from '../child.js'

export interface TmcpTool {
  name: string
  title: string
  description: string
  schema: z.ZodObject
  annotations?: Record<string, boolean>
}

type ToolAnswer = { content: Array<{ type: 'text', text: string }>, isError?: boolean }

/** Serves `tools`, each call answered by `call` with the arguments tmcp validated. */
export async function serveTmcp (serverInfo: { name: string, version: string }, tools: readonly TmcpTool[], call: (name: string, args: Record<string, unknown>) => ToolAnswer): Promise<void> {
  const server = new McpServer({ ...serverInfo, description: 'bench' }, {
    adapter: new ZodJsonSchemaAdapter(),
    capabilities: { tools: {} }
  })
  for (const tool of tools) {
    server.tool({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      schema: tool.schema,
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations })
    }, async (args: Record<string, unknown>) => call(tool.name, args))
  }
  const transport = new HttpTransport(server, { path: '/mcp', disableSse: true })

  const app = Fastify()
  // tmcp reads the body from the web Request itself: keep Fastify from parsing it
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => { done(null, body) })
  app.post('/mcp', async (request, reply) => {
    const headers = new Headers()
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string') headers.set(name, value)
      else if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    }
    const webRequest = new Request(`http://${request.headers.host ?? '127.0.0.1'}${request.url}`, { method: 'POST', headers, body: request.body as string })
    const response = await transport.respond(webRequest) ?? new Response(null, { status: 404 })
    reply.code(response.status)
    response.headers.forEach((value, name) => { reply.header(name, value) })
    return reply.send(Buffer.from(await response.arrayBuffer()))
  })
  await serve(app)
}
