/**
 * Cold start's second floor: the bare Fastify route of cold-bare.ts that
 * also does what any TypeBox-using app does before its first answer: imports
 * `@sinclair/typebox`, compiles the ten tools' input schemas with
 * TypeCompiler and checks the call's arguments against its tool's. It
 * answers the bytes the plugin answered (handed over by bench/cold-start.ts).
 */
import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import Fastify from 'fastify'
import { serve } from '../child.js'
import { COLD_ANSWERS_ENV, COLD_TOOLS, type ColdAnswers } from '../cold-start-catalog.js'

const given = JSON.parse(process.env[COLD_ANSWERS_ENV] ?? 'null') as ColdAnswers | null
if (given === null) throw new Error(`${COLD_ANSWERS_ENV} is not set: bench/cold-start.ts starts this server`)
const legacy = { ...given.legacy, body: Buffer.from(given.legacy.body, 'base64') }
const modern = { ...given.modern, body: Buffer.from(given.modern.body, 'base64') }

const checks = new Map(COLD_TOOLS.map((tool) => [tool.name, TypeCompiler.Compile(
  Type.Object({ query: Type.String({ minLength: 1 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) })
)]))

const app = Fastify()
app.post('/mcp', (request, reply) => {
  const params = (request.body as { params?: { name?: string, arguments?: unknown, _meta?: unknown } } | null)?.params
  const check = checks.get(params?.name ?? '')
  if (check === undefined || !check.Check(params?.arguments)) {
    reply.code(400).send({ error: 'invalid arguments' })
    return
  }
  const answer = params?._meta === undefined ? legacy : modern
  reply.code(answer.status).headers(answer.headers).send(answer.body)
})
await serve(app)
