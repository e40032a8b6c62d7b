/** The `fastify-mcp-capabilities/testing` entry: an in-process client for your own tests. */
export { injectClient, McpResponseError } from './inject-client.js'
export type { CallOptions, DiscoverAnswer, InjectClient, InjectClientOptions, NotificationListener } from './inject-client.js'
