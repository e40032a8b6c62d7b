/**
 * The floor: a bare Fastify route that parses the same JSON body with
 * Fastify's own parser and answers with bytes handed over by the runner,
 * captured from the reference server over real requests (the runner then
 * checks the bytes it gets back are identical).
 */
import Fastify from 'fastify'
import { serve } from '../child.js'
import { type CannedBody, receiveAnswers, sendCanned } from './canned.js'

const answers = await receiveAnswers()

const app = Fastify()
app.post('/mcp', (request, reply) => {
  sendCanned(answers, request.body as CannedBody, reply)
})
await serve(app)
