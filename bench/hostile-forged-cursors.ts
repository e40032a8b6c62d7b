/**
 * Memory a client can pin through list cursors (issue 36 item 6): 2,000
 * tools of ~1 KiB listed with `listPageSize: 1000`, then 400 cursors the
 * server never issued (each naming another page), through the endpoint; and
 * 400 distinct issued cursors against one catalogue (what a catalogue that
 * changed while clients paged can have issued), whose kept pages are bounded
 * in bytes. Heap after GC, side by side. Part of `npm run bench:hostile`.
 */
import Fastify from 'fastify'
import mcpCapabilities, { defineTools, type ToolDefinition } from '../lib/index.js'
import { settledHeap } from './settled-heap.js'
import { Catalog, type CatalogEntry } from '../lib/definitions/catalog.js'
import { CursorSeal } from '../lib/definitions/cursor-seal.js'

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(1).padStart(8)

export async function forgedCursorMemory (tools = 2000, pageSize = 1000, cursors = 400): Promise<void> {
  const pad = 'x'.repeat(1000)
  const defined: Record<string, ToolDefinition> = {}
  for (let i = 0; i < tools; i++) defined[`tool_${i}`] = { description: pad, handler: () => ({ content: [] }) }
  const app = Fastify()
  await app.register(mcpCapabilities, { serverInfo: { name: 'cursors', version: '1' }, server: defineTools(defined), limits: { listPageSize: pageSize } })
  await app.ready()
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }
  const list = async (cursor?: string): Promise<string> => {
    const reply = await app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor === undefined ? {} : { cursor } }) })
    const body = reply.json()
    return body.error !== undefined ? `error ${String(body.error.code)}` : `${String(body.result.tools.length)} tools`
  }
  console.log(`\nlist cursors: ${tools.toLocaleString('en')} tools of ~1 KiB, pages of ${pageSize}, ${cursors} cursors, heap after GC`)
  console.log('case'.padEnd(48), 'held MiB', ' answers')
  await list()
  let before = await settledHeap()
  const answers = new Set<string>()
  for (let n = 1; n <= cursors; n++) {
    // The unsealed form the catalogue used to accept, and the sealed form with a made-up tag.
    answers.add(await list(Buffer.from(`tools:${n}`, 'latin1').toString('base64url')))
    answers.add(await list(`${n.toString(36)}.${'A'.repeat(22)}`))
  }
  console.log(`${2 * cursors} forged cursors, through the endpoint`.padEnd(48), mib(await settledHeap() - before), ' ', [...answers].join(', '))
  await app.close()

  const seal = new CursorSeal()
  const catalog = new Catalog<CatalogEntry>('tool', seal)
  for (let i = 0; i < tools; i++) {
    const listed = Object.freeze({ name: `tool_${i}`, description: pad })
    catalog.add({ name: `tool_${i}`, listed, json: JSON.stringify(listed), view: 'tools', origin: 'bench' })
  }
  catalog.page('tools', undefined, pageSize)
  before = await settledHeap()
  for (let n = 1; n <= cursors; n++) catalog.page('tools', seal.seal('tools', n), pageSize)
  console.log(`${cursors} distinct issued cursors, one catalogue`.padEnd(48), mib(await settledHeap() - before), '  pages kept up to 16 MiB')
}
