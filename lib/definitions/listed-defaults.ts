/**
 * A property with a `default` may be left out: the validator fills it in
 * before the handler runs. TypeBox still lists it in `required`
 * (`Type.Number({ default: 3 })` is not `Type.Optional`), which would tell
 * clients and models it must be sent. The listed copy drops such properties
 * from `required`, at every depth (nested defaults are filled in as well).
 */
import type { JsonObject } from '../protocol/jsonrpc.js'

/** Drops properties that have a `default` from each `required` list of a plain JSON schema (in place); returns it. */
export function defaultsOptional<T> (schema: T): T {
  visit(schema)
  return schema
}

function visit (node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item)
    return
  }
  if (node === null || typeof node !== 'object') return
  const object = node as JsonObject
  const properties = object.properties
  if (Array.isArray(object.required) && properties !== null && typeof properties === 'object' && !Array.isArray(properties)) {
    const defaulted = (name: unknown): boolean => {
      const property = (properties as JsonObject)[String(name)]
      return property !== null && typeof property === 'object' && Object.hasOwn(property, 'default')
    }
    const required = object.required.filter((name) => !defaulted(name))
    if (required.length === 0) delete object.required
    else object.required = required
  }
  for (const key of Object.keys(object)) {
    // `default` and `const` hold data, not schemas.
    if (key !== 'default' && key !== 'const' && key !== 'enum' && key !== 'examples') visit(object[key])
  }
}
