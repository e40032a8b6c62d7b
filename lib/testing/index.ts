/** The `fastify-mcp-capabilities/testing` entry: an in-process client for your own tests. */
export { injectClient, McpResponseError } from './inject-client.js'
export type { DiscoverAnswer, InjectClient, InjectClientOptions } from './inject-client.js'
