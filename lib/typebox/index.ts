/**
 * The plugin's own TypeBox 0.34, and the public `fastify-mcp-capabilities/typebox`
 * entry. Every file of lib/ takes TypeBox's runtime values from lib/typebox/
 * (type-only imports may name `@sinclair/typebox` directly). From the sources
 * it is the installed `@sinclair/typebox`; the build (scripts/build.mjs)
 * bundles it, so the package reads a few files instead of TypeBox's ~200
 * modules on every start (docs/performance.md).
 *
 * The bundled copy keeps its own registries: a format or kind registered with
 * `FormatRegistry` / `TypeRegistry` from this entry is one the plugin compiles
 * with; one registered on a separately imported `@sinclair/typebox` is not.
 * Schemas themselves interoperate between copies (`Kind` is a global symbol).
 * The same holds for `TypeSystemPolicy` (from `@sinclair/typebox/system`,
 * exported here too): the plugin reads this copy's.
 */
export * from '@sinclair/typebox'
export { TypeSystem, TypeSystemPolicy } from '@sinclair/typebox/system'
