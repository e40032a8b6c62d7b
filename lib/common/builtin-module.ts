/**
 * A Node built-in module as `require` gives it, for the bundle's imports of
 * `node:*` (scripts/build.mjs rewrites each into a read of this): no ES
 * module facade is built, so the lazy parts of a built-in stay unloaded
 * (docs/performance.md "Built-in modules without their ES facade").
 * `process.getBuiltinModule` is Node 20.16+ and 22.3+, as package.json
 * `engines` says; on an older Node the import fails with this message
 * instead of a TypeError.
 */
export function builtinModule (id: string): unknown {
  if (typeof process.getBuiltinModule !== 'function') {
    throw new Error(`fastify-mcp-capabilities needs Node.js 20.16 or later (process.getBuiltinModule), and this is ${process.version}`)
  }
  return process.getBuiltinModule(id)
}
