/**
 * Cold start's floor: a bare Fastify route that parses the same JSON body
 * and answers the bytes the plugin answered (captured by bench/cold-start.ts
 * and handed over in the environment, so nothing is waited for after start).
 */
import Fastify from 'fastify'
import { serve } from '../child.js'
import { COLD_ANSWERS_ENV, type ColdAnswers } from '../cold-start-catalog.js'

const given = JSON.parse(process.env[COLD_ANSWERS_ENV] ?? 'null') as ColdAnswers | null
if (given === null) throw new Error(`${COLD_ANSWERS_ENV} is not set: bench/cold-start.ts starts this server`)
const legacy = { ...given.legacy, body: Buffer.from(given.legacy.body, 'base64') }
const modern = { ...given.modern, body: Buffer.from(given.modern.body, 'base64') }

const app = Fastify()
app.post('/mcp', (request, reply) => {
  const params = (request.body as { params?: { _meta?: unknown } } | null)?.params
  const answer = params?._meta === undefined ? legacy : modern
  reply.code(answer.status).headers(answer.headers).send(answer.body)
})
await serve(app)
