/**
 * The official stack with the catalogue's tools written as its docs write
 * them: zod object schemas, which the SDK validates each call's arguments
 * with. Timed on `tools/call` against `defineTools` (TypeBox), the
 * comparison issue 13 asks for. Same HTTP face as `official` (official-app.ts).
 */
import { z } from 'zod'
import { serveOfficial } from './official-app.js'

// The catalogue's input schemas in zod, built once (module scope), as a careful user would.
const SCHEMAS: Record<string, z.ZodObject> = {
  search_issues: z.object({
    query: z.string().describe('Words to look for'),
    state: z.enum(['open', 'closed', 'all']).default('open'),
    limit: z.number().int().min(1).max(100).default(20)
  }),
  get_issue: z.object({ number: z.number().int().min(1).describe('Issue number') }),
  create_issue: z.object({
    title: z.string().min(1).max(200),
    body: z.string().optional(),
    labels: z.array(z.string()).refine((labels) => new Set(labels).size === labels.length, 'labels must be unique').optional()
  }),
  add_comment: z.object({ number: z.number().int().min(1), body: z.string().min(1) })
}

await serveOfficial((tool) => {
  const schema = SCHEMAS[tool.name]
  if (schema === undefined) throw new Error(`no zod schema for ${tool.name}`)
  return schema
})
