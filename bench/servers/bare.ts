/**
 * The floor: a bare Fastify route that parses the same JSON body with
 * Fastify's own parser and answers with bytes handed over by the runner,
 * captured from the reference server over real requests (the runner then
 * checks the bytes it gets back are identical).
 */
import Fastify from 'fastify'
import { receive, serve } from '../child.js'
import { cannedKey } from '../scenarios.js'

export interface CannedAnswer {
  /** The request this answers, by method and era (`cannedKey`). */
  key: string
  status: number
  headers: Record<string, string>
  /** Base64 of the exact body bytes. */
  body: string
}

export interface AnswersMessage { type: 'answers', answers: CannedAnswer[] }

const { answers } = await receive<AnswersMessage>('answers')
const byKey = new Map(answers.map((answer) => [answer.key, { ...answer, body: Buffer.from(answer.body, 'base64') }]))

const app = Fastify()
app.post('/mcp', (request, reply) => {
  const key = cannedKey(request.body as Parameters<typeof cannedKey>[0])
  const answer = key === undefined ? undefined : byKey.get(key)
  if (answer === undefined) {
    reply.code(404).send()
    return
  }
  reply.code(answer.status).headers(answer.headers).send(answer.body)
})
await serve(app)
