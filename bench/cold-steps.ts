/**
 * The start-up steps that bench/cold-phases.ts times and
 * bench/cold-instructions.ts counts, as the part of their child script after
 * Fastify is imported: the floor (`@sinclair/typebox` and its compiler, the
 * ten schemas of bench/cold-start-catalog.ts compiled, one route) or a built
 * plugin (`defineTools` with the ten tools, registered with the era given),
 * each step (`import`, `define`) closed by the code `close` writes for it.
 * The script goes on with `await app.ready()`; `answer` is the tools'
 * answer, as bench/cold-start-catalog.ts's `coldAnswer` writes it.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { COLD_TOOL_NAMES } from './cold-start-catalog.js'
import { REPO_DIR } from './launch.js'

export function coldSteps (entry: string | null, typebox: string, era: string, close: (step: 'import' | 'define') => string): string {
  return `
const names = ${JSON.stringify(COLD_TOOL_NAMES)}
const answer = (name, args) => ({ content: [{ type: 'text', text: name + ': ' + String(args.query) + ' (' + String(args.limit ?? 'all') + ')' }] })
let Type
const input = () => Type.Object({ query: Type.String({ minLength: 1 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })) })
let app
if (${JSON.stringify(entry)} === null) {
  Type = (await import('@sinclair/typebox')).Type
  const { TypeCompiler } = await import('@sinclair/typebox/compiler')
  ${close('import')}
  const checks = new Map(names.map((name) => [name, TypeCompiler.Compile(input())]))
  ${close('define')}
  app = Fastify()
  app.post('/mcp', (request, reply) => {
    const params = request.body?.params
    const check = checks.get(params?.name ?? '')
    if (check === undefined || !check.Check(params?.arguments)) return reply.code(400).send({ error: 'invalid arguments' })
    reply.send({ jsonrpc: '2.0', id: request.body.id, result: answer(params.name, params.arguments) })
  })
} else {
  const { default: mcpCapabilities, defineTools } = await import(${JSON.stringify(entry)})
  Type = (await import(${JSON.stringify(typebox)})).Type
  ${close('import')}
  const tools = defineTools(Object.fromEntries(names.map((name) => [name, { title: name, description: 'The ' + name + ' tool.', input: input(), handler: (args) => answer(name, args) }])))
  ${close('define')}
  app = Fastify()
  app.register(mcpCapabilities, { server: tools, serverInfo: { name: 'cold-steps', version: '1.0.0' }, era: ${JSON.stringify(era)}, path: '/mcp' })
}
`
}

/** The TypeBox a build offers beside its entry (`entry` a file URL), or the peer for a build without one and for the floor. */
export function typeboxOf (entry: string | null): string {
  if (entry === null) return '@sinclair/typebox'
  const offered = new URL('typebox/index.js', entry)
  return existsSync(offered) ? offered.href : '@sinclair/typebox'
}

/** What is started: the floor (`entry` null), this checkout's build and, with `before`, another checkout's (built). */
export interface ColdContender { label: string, entry: string | null, cwd: string }

export function coldContenders (before: string | undefined): ColdContender[] {
  const contenders: ColdContender[] = [
    { label: 'floor', entry: null, cwd: REPO_DIR },
    { label: 'plugin', entry: pathToFileURL(join(REPO_DIR, 'dist', 'lib', 'index.js')).href, cwd: REPO_DIR }
  ]
  if (before !== undefined) contenders.push({ label: 'before', entry: pathToFileURL(join(before, 'dist', 'lib', 'index.js')).href, cwd: before })
  for (const { entry } of contenders) {
    if (entry !== null && !existsSync(new URL(entry))) throw new Error(`${entry} is missing: run npm run build there`)
  }
  return contenders
}
