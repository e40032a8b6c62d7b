/**
 * valibot's own JSON Schema converter, `@valibot/to-json-schema`, when the
 * application has it installed: a plain valibot schema carries no JSON
 * Schema (Standard JSON Schema is added by the converter's
 * `toStandardJsonSchema`), so it is listed through the converter, found on
 * the first plain valibot schema defined. An optional peer: without it such
 * a schema is refused, naming the package to install.
 */
import { createRequire } from 'node:module'
import type { StandardJsonSchema } from './schema-types.js'

type ToStandardJsonSchema = (schema: unknown) => StandardJsonSchema

/** The converter, or why it is not available (undefined: not looked for yet). */
let found: { readonly convert: ToStandardJsonSchema } | { readonly missing: string } | undefined

function load (): { readonly convert: ToStandardJsonSchema } | { readonly missing: string } {
  try {
    // Synchronous (definitions are made synchronously); the package ships CommonJS beside its ESM build.
    const converter = createRequire(import.meta.url)('@valibot/to-json-schema') as { toStandardJsonSchema?: unknown }
    if (typeof converter.toStandardJsonSchema === 'function') return { convert: converter.toStandardJsonSchema as ToStandardJsonSchema }
    return { missing: '@valibot/to-json-schema is installed but has no toStandardJsonSchema (update it)' }
  } catch (err) {
    const code = (err as { code?: unknown }).code
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') return { missing: 'install @valibot/to-json-schema to list it' }
    return { missing: `@valibot/to-json-schema could not be loaded (${(err as Error).message})` }
  }
}

/** `schema` (a plain valibot schema) with Standard JSON Schema, or why it cannot have it. */
export function withValibotJsonSchema (schema: unknown): StandardJsonSchema | string {
  found ??= load()
  return 'convert' in found ? found.convert(schema) : found.missing
}
