/**
 * The Fastify plugin: validates options at registration and mounts the MCP
 * endpoint. (Placeholder until the endpoint lands.)
 */
import type { FastifyPluginAsync } from 'fastify'
import fp from 'fastify-plugin'
import type { ServerModule } from './server-module.js'

export interface McpCapabilitiesOptions {
  server: ServerModule
  era?: 'legacy' | 'modern' | 'dual'
}

const plugin: FastifyPluginAsync<McpCapabilitiesOptions> = async () => {}

export const mcpCapabilities = fp(plugin, { fastify: '5.x', name: 'fastify-mcp-capabilities' })
