/**
 * skills/list and skill file reads, side by side in one run: the defined
 * skills (prepared bytes: the list's and each file's JSON made once) against
 * a hand-written module answering the same entries and files with fresh
 * objects (serialised on every request). In-process (`app.inject`), so the
 * figures compare the endpoint's work, not the network.
 *
 *   npm run bench:skills          # SKILLS=1000 ROUNDS=300
 */
import Fastify, { type FastifyInstance } from 'fastify'
import mcpCapabilities, { defineSkills, type SkillDefinition } from '../lib/index.js'

const SKILLS = Number(process.env.SKILLS ?? 1000)
const ROUNDS = Number(process.env.ROUNDS ?? 300)
const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

const definitions: Record<string, SkillDefinition> = {}
for (let i = 0; i < SKILLS; i++) {
  definitions[`team/skill-${i}`] = { files: { 'SKILL.md': `---\nname: skill-${i}\ndescription: Skill number ${i}, for the benchmark\n---\n\n# Skill ${i}\n\n${'Step. '.repeat(200)}\n`, 'references/GUIDE.md': `# Guide ${i}\n` } }
}
const defined = defineSkills(definitions)
// The same answers, made afresh on every request.
const listed = defined.listSkills() as { skills: unknown[] }
const entries = JSON.parse(JSON.stringify(listed.skills)) as Array<{ uri: string, resources: Array<{ uri: string }> }>
const files = new Map<string, unknown>()
for (const entry of entries) {
  for (const file of entry.resources) files.set(file.uri, JSON.parse(JSON.stringify(defined.readResource({ uri: file.uri }, undefined as never))))
}
const byHand = {
  listResources: () => ({ resources: [] }),
  readResource: (params: { uri: string }) => structuredClone(files.get(params.uri)) as never,
  listSkills: () => ({ skills: structuredClone(entries) }) as never,
  getSkill: (params: { uri: string }) => ({ skill: structuredClone(entries.find((e) => e.uri === params.uri)) }) as never
}

async function app (server: object): Promise<FastifyInstance> {
  const fastify = Fastify()
  await fastify.register(mcpCapabilities, { server, serverInfo: { name: 'bench', version: '1.0.0' } })
  await fastify.ready()
  return fastify
}

async function rate (fastify: FastifyInstance, method: string, params: Record<string, unknown>, name?: string): Promise<number> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }
  if (name !== undefined) headers['mcp-name'] = name
  const payload = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: META } })
  for (let i = 0; i < 20; i++) await fastify.inject({ method: 'POST', url: '/mcp', headers, payload })
  const started = process.hrtime.bigint()
  for (let i = 0; i < ROUNDS; i++) {
    const reply = await fastify.inject({ method: 'POST', url: '/mcp', headers, payload })
    if (reply.statusCode !== 200) throw new Error(`${method}: ${reply.statusCode} ${reply.body.slice(0, 200)}`)
  }
  return ROUNDS / (Number(process.hrtime.bigint() - started) / 1e9)
}

const prepared = await app(defined)
const fresh = await app(byHand)
const file = 'skill://team/skill-7/SKILL.md'
const rows: Array<[string, number, number]> = [
  [`skills/list (${SKILLS} skills)`, await rate(prepared, 'skills/list', {}), await rate(fresh, 'skills/list', {})],
  ['skills/get', await rate(prepared, 'skills/get', { uri: file }), await rate(fresh, 'skills/get', { uri: file })],
  ['resources/read (SKILL.md)', await rate(prepared, 'resources/read', { uri: file }, file), await rate(fresh, 'resources/read', { uri: file }, file)]
]
console.log('| request | defineSkills (req/s) | by hand (req/s) | ratio |\n|---|---|---|---|')
for (const [what, a, b] of rows) console.log(`| ${what} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(a / b).toFixed(2)} |`)
await prepared.close()
await fresh.close()
