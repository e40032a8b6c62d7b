/** Cold start: tmcp with the ten tools of bench/cold-start-catalog.ts in zod (see tmcp-app.ts). */
import { z } from 'zod'
import { SERVER_INFO } from '../catalog.js'
import { COLD_TOOLS, coldAnswer } from '../cold-start-catalog.js'
import { serveTmcp } from './tmcp-app.js'

await serveTmcp(SERVER_INFO, COLD_TOOLS.map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  schema: z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(100).optional() })
})), coldAnswer)
