/**
 * The floors' canned answers (servers/bare.ts, servers/bare-tool.ts): bytes
 * handed over by the runner, captured from the reference server over real
 * requests, found by method and era (`cannedKey`).
 */
import type { FastifyReply } from 'fastify'
import { receive } from '../child.js'
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

export interface Canned { status: number, headers: Record<string, string>, body: Buffer }

export type CannedBody = Parameters<typeof cannedKey>[0]

/** Waits for the runner's answers, keyed as `cannedKey` keys a request. */
export async function receiveAnswers (): Promise<Map<string, Canned>> {
  const { answers } = await receive<AnswersMessage>('answers')
  return new Map(answers.map((answer) => [answer.key, { ...answer, body: Buffer.from(answer.body, 'base64') }]))
}

/** Sends the canned answer to this request, or a bodiless 404 when there is none. */
export function sendCanned (answers: Map<string, Canned>, body: CannedBody, reply: FastifyReply): void {
  const key = cannedKey(body)
  const answer = key === undefined ? undefined : answers.get(key)
  if (answer === undefined) {
    reply.code(404).send()
    return
  }
  reply.code(answer.status).headers(answer.headers).send(answer.body)
}
