/**
 * The catalogue's input schemas (bench/catalog.ts) in zod, built once, as a
 * careful user would: shared by the official stack's and tmcp's servers.
 */
import { z } from 'zod'

export const ZOD_SCHEMAS: Record<string, z.ZodObject> = {
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
