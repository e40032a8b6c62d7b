/**
 * Real peers: servers built with the official TypeScript SDKs.
 * - v2 (`@modelcontextprotocol/server` 2.4.0): `createMcpHandler`, dual era
 *   (the default, stateless legacy fallback) or modern only (`legacy: 'reject'`).
 * - v1 (`@modelcontextprotocol/sdk` 1.32.2): `McpServer` on a stateless
 *   `StreamableHTTPServerTransport`, one server per request; legacy only.
 */
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server'
import type { CacheHint } from '@modelcontextprotocol/server'
import { McpServer as V1McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { serveFetch, serveNode } from './serve.js'
import type { Served } from './serve.js'

export const V2_INFO = { name: 'sdk-v2-peer', version: '2.4.0-test' }
export const V1_INFO = { name: 'sdk-v1-peer', version: '1.32.2-test' }

export interface V2Options {
  mode: 'dual' | 'modern'
  discoverHint?: CacheHint
  instructions?: string
  /** Register a prompt as well as the tool. */
  prompts?: boolean
}

export async function startV2 (options: V2Options): Promise<Served> {
  const factory = (): McpServer => {
    const server = new McpServer(V2_INFO, {
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
      ...(options.discoverHint !== undefined ? { cacheHints: { 'server/discover': options.discoverHint } } : {})
    })
    server.registerTool('echo', { description: 'Echo' }, async () => ({ content: [{ type: 'text', text: 'echo' }] }))
    if (options.prompts === true) {
      server.registerPrompt('greet', { description: 'Greet' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }))
    }
    return server
  }
  const handler = createMcpHandler(factory, options.mode === 'modern' ? { legacy: 'reject' } : {})
  const served = await serveFetch(async request => await handler.fetch(request))
  return {
    url: served.url,
    close: async () => {
      await handler.close()
      await served.close()
    }
  }
}

export async function startV1 (options: { prompts?: boolean } = {}): Promise<Served & { requests: string[] }> {
  const requests: string[] = []
  const served = await serveNode(async (req, res) => {
    requests.push(req.method ?? '')
    const server = new V1McpServer(V1_INFO)
    server.registerTool('echo', { description: 'Echo' }, async () => ({ content: [{ type: 'text', text: 'echo' }] }))
    if (options.prompts === true) {
      server.registerPrompt('greet', { description: 'Greet' }, async () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] }))
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => {
      transport.close().catch(() => {})
      server.close().catch(() => {})
    })
    await server.connect(transport)
    await transport.handleRequest(req, res)
  })
  return { ...served, requests }
}
