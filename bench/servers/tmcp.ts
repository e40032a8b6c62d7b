/**
 * tmcp serving the catalogue's tools written in zod (the same schemas as
 * official-zod.ts), for `tools/call` in both eras. See tmcp-app.ts.
 */
import { callTool, SERVER_INFO, TOOLS } from '../catalog.js'
import { ZOD_SCHEMAS } from './catalog-zod.js'
import { serveTmcp } from './tmcp-app.js'

await serveTmcp(SERVER_INFO, TOOLS.map((tool) => {
  const schema = ZOD_SCHEMAS[tool.name]
  if (schema === undefined) throw new Error(`no zod schema for ${tool.name}`)
  return { name: tool.name, title: tool.title, description: tool.description, schema, annotations: tool.annotations }
}), callTool)
