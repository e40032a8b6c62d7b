/** TypeBox's error iterator, from the plugin's own TypeBox (lib/typebox/index.ts). */
export { Errors, type ValueError } from '@sinclair/typebox/errors'
