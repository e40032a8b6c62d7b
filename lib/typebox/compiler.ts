/** TypeBox's compiler, from the plugin's own TypeBox (lib/typebox/index.ts). */
export { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler'
