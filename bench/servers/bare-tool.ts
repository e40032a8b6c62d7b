/**
 * The second floor: the bare route of servers/bare.ts that, for `tools/call`,
 * also does what any hand-written endpoint must: checks the arguments with
 * the tool's TypeBox schema (compiled once by TypeCompiler), runs the
 * catalogue's handler and serialises the JSON-RPC answer with
 * `JSON.stringify`, in the envelope the plugin answers in each era (the
 * runner checks the bytes are the plugin's). Every other request gets the
 * canned bytes, as on the bare floor.
 */
import { TypeCompiler } from '@sinclair/typebox/compiler'
import Fastify from 'fastify'
import { callTool, SERVER_INFO } from '../catalog.js'
import { TOOL_INPUTS } from '../catalog-typebox.js'
import { serve } from '../child.js'
import { cannedKey } from '../scenarios.js'
import { type CannedBody, receiveAnswers, sendCanned } from './canned.js'

const answers = await receiveAnswers()
const checks = new Map(Object.entries(TOOL_INPUTS).map(([name, schema]) => [name, TypeCompiler.Compile(schema)]))
/** What the modern era adds to every result (the plugin's envelope). */
const SERVER_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }

interface Call { jsonrpc: '2.0', id: string | number, method: 'tools/call', params?: { name: string, arguments?: Record<string, unknown>, _meta?: unknown } }

const app = Fastify()
app.post('/mcp', (request, reply) => {
  const message = request.body as Call
  if (message?.method !== 'tools/call') {
    sendCanned(answers, request.body as CannedBody, reply)
    return
  }
  const modern = message.params?._meta !== undefined
  // status and headers as the plugin sent them (only the body is worked out here)
  const canned = answers.get(cannedKey(message) ?? '')
  const name = message.params?.name ?? ''
  const args = message.params?.arguments ?? {}
  const check = checks.get(name)
  if (canned === undefined || check === undefined || !check.Check(args)) {
    reply.code(400).send({ jsonrpc: '2.0', id: message.id ?? null, error: { code: -32602, message: 'Invalid params' } })
    return
  }
  const result = callTool(name, args)
  const body = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: modern ? { ...result, resultType: 'complete', _meta: SERVER_META } : result })
  reply.code(canned.status).headers(canned.headers).send(body)
})
await serve(app)
