/**
 * The floor: a bare Fastify route that parses the same JSON body with
 * Fastify's own parser and answers with bytes handed over by the runner,
 * captured from the reference server over real requests (the runner then
 * checks the bytes it gets back are identical).
 */
import Fastify from 'fastify'
import { receive, serve } from '../child.js'

export interface CannedAnswer {
  /** JSON-RPC method of the request this answers. */
  method: string
  status: number
  headers: Record<string, string>
  /** Base64 of the exact body bytes. */
  body: string
}

export interface AnswersMessage { type: 'answers', answers: CannedAnswer[] }

const { answers } = await receive<AnswersMessage>('answers')
const byMethod = new Map(answers.map((answer) => [answer.method, { ...answer, body: Buffer.from(answer.body, 'base64') }]))

const app = Fastify()
app.post('/mcp', (request, reply) => {
  const method = (request.body as { method?: unknown } | null)?.method
  const answer = typeof method === 'string' ? byMethod.get(method) : undefined
  if (answer === undefined) {
    reply.code(404).send()
    return
  }
  reply.code(answer.status).headers(answer.headers).send(answer.body)
})
await serve(app)
