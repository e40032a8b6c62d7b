/**
 * The official stack with the catalogue's tools written as its docs write
 * them: zod object schemas (catalog-zod.ts), which the SDK validates each
 * call's arguments with. Timed on `tools/call` against `defineTools`
 * (TypeBox), the comparison issue 13 asks for. Same HTTP face as `official`
 * (official-app.ts).
 */
import { ZOD_SCHEMAS } from './catalog-zod.js'
import { serveOfficial } from './official-app.js'

await serveOfficial((tool) => {
  const schema = ZOD_SCHEMAS[tool.name]
  if (schema === undefined) throw new Error(`no zod schema for ${tool.name}`)
  return schema
})
