/**
 * `app.mcp.capabilities` is typed by the general capability shapes (a Fastify
 * decorator is declared once for every instance, so it cannot follow the
 * type of the module one registration passed); `buildCapabilities` with the
 * same module and options gives the narrowed type of the same value
 * (test/package/decorator-capabilities.test.ts checks the values are equal).
 * Checked by `npm run typecheck` (tsc), never run.
 */
import { expectTypeOf } from 'expect-type'
import type { FastifyInstance } from 'fastify'
import {
  buildCapabilities,
  type LegacyServerCapabilities,
  type McpDecorator,
  type ModernServerCapabilities
} from '../../lib/index.js'

declare const app: FastifyInstance

expectTypeOf(app.mcp).toEqualTypeOf<McpDecorator>()
expectTypeOf(app.mcp.capabilities.modern).toEqualTypeOf<ModernServerCapabilities>()
expectTypeOf(app.mcp.capabilities.legacy).toEqualTypeOf<LegacyServerCapabilities>()
// the general shape does not know which capabilities this module has
expectTypeOf(app.mcp.capabilities.modern.tools).toEqualTypeOf<{ readonly listChanged: boolean } | undefined>()

const fn = async (): Promise<object> => ({})
const server = { listTools: fn, callTool: fn }

// buildCapabilities follows the module: tools, no prompts
const modern = buildCapabilities(server, { era: 'modern' })
expectTypeOf(modern.tools).toEqualTypeOf<{ readonly listChanged: true }>()
expectTypeOf(modern).not.toHaveProperty('prompts')
// and the narrowed value is still a valid general shape, comparable with the decorator's
expectTypeOf(modern).toMatchTypeOf<ModernServerCapabilities>()
expectTypeOf(buildCapabilities(server)).toMatchTypeOf<LegacyServerCapabilities>()
