/** Cold start: the official stack (SDK v2 on Fastify, official-app.ts) with the ten tools of bench/cold-start-catalog.ts in zod. */
import { z } from 'zod'
import { COLD_TOOLS, coldAnswer } from '../cold-start-catalog.js'
import { serveOfficial } from './official-app.js'

await serveOfficial(() => z.object({ query: z.string().min(1), limit: z.number().int().min(1).max(100).optional() }), { tools: COLD_TOOLS, call: coldAnswer })
