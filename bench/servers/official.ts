/**
 * The official stack serving the catalogue's tools from their JSON Schemas
 * (`fromJsonSchema`, validated by the SDK's JSON Schema validator), so its
 * `tools/list` lists the very schemas the plugin lists. See official-app.ts,
 * and official-zod.ts for the same tools written in zod.
 */
import { fromJsonSchema } from '@modelcontextprotocol/server'
import { serveOfficial } from './official-app.js'

await serveOfficial((tool) => fromJsonSchema<Record<string, unknown>>(tool.inputSchema))
