/**
 * The Fastify context each tool is served from, for MCP hooks (they apply by
 * context, lib/hooks/registry.ts): a route-backed tool's route context
 * (lib/routes/route-tools.ts), none for a defined tool.
 */
import type { Catalog } from '../definitions/catalog.js'
import type { ToolEntry } from '../definitions/tools.js'
import type { ServedContexts } from '../hooks/hooked-decorator.js'

/** Where the tools of `catalog` are served from, for MCP hooks (they apply by context): a route-backed tool's route context. */
export function toolContexts (catalog: Catalog<ToolEntry> | undefined): ServedContexts {
  return {
    of: (name) => catalog?.get(name)?.context,
    all: () => catalog === undefined ? [] : catalog.names().flatMap((name) => catalog.entry(name)?.context ?? [])
  }
}
