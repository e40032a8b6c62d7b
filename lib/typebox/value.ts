/**
 * TypeBox's Value module, from the plugin's own TypeBox (lib/typebox/index.ts):
 * imported lazily (lib/definitions/nested-defaults.ts), a chunk of its own in the build.
 */
export { Value } from '@sinclair/typebox/value'
