/**
 * The request a route-backed tool call makes (issue 34, item 3): hooks can
 * tell it apart (`request.mcpRouteTool`: the tool and the MCP request; null
 * otherwise, with or without the routes option), its log lines carry the
 * MCP request's id (`mcpReqId`), it gets the MCP request's Host, and a
 * global `@fastify/rate-limit` registered before the plugin counts each
 * call once with the documented `allowList`.
 */
import rateLimit from '@fastify/rate-limit'
import Fastify from 'fastify'
import t from 'tap'
import mcpCapabilities, { type McpRouteToolRequest } from '../../lib/index.js'
import { injectClient } from '../../lib/testing/index.js'

const SERVER_INFO = { name: 'inner-request', version: '1.0.0' }

t.test('request.mcpRouteTool, mcpReqId in the logs, the outer Host', async (t) => {
  const lines: Array<Record<string, unknown>> = []
  const app = Fastify({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
  t.teardown(() => app.close())
  const marks: Array<{ url: string, tool: McpRouteToolRequest | null }> = []
  // A global hook added before the plugin: the mark is there from the request's first moment.
  app.addHook('onRequest', async (request) => { marks.push({ url: request.url, tool: request.mcpRouteTool }) })
  await app.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
  let host: string | undefined
  app.get('/tenant', { config: { mcp: { name: 'tenant' } } }, async (request) => {
    host = request.host
    request.log.info('tenant route ran')
    return { host: request.host }
  })
  await app.ready()
  await injectClient(app, { era: 'modern', headers: { host: 'acme.localhost:3000' } }).callTool('tenant', {})
  t.equal(host, 'acme.localhost:3000', 'the route sees the Host the MCP client addressed')
  const inner = marks.filter((mark) => mark.url === '/tenant')
  t.equal(inner.length, 1, 'one inner request')
  t.ok(marks.filter((mark) => mark.url !== '/tenant').every((mark) => mark.tool === null), 'the MCP requests are not marked')
  t.equal(inner[0]!.tool?.tool, 'tenant', 'the inner request names its tool')
  const outerId = inner[0]!.tool?.outerRequest.id
  t.ok(outerId !== undefined && lines.some((line) => line.msg === 'incoming request' && (line.req as { url: string }).url === '/mcp' && line.reqId === outerId), 'and links the MCP request')
  const routeLine = lines.find((line) => line.msg === 'tenant route ran')!
  t.equal(routeLine.mcpReqId, outerId, 'the inner request\'s log lines carry the MCP request\'s id')
  t.not(routeLine.reqId, outerId, 'beside its own id')
  t.ok(lines.filter((line) => line.mcpReqId === outerId).length >= 3, 'incoming, the route\'s own and completed lines all carry it')

  const off = Fastify()
  t.teardown(() => off.close())
  await off.register(mcpCapabilities, { server: { listPrompts: () => ({ prompts: [] }), getPrompt: () => ({ messages: [] }) }, serverInfo: SERVER_INFO })
  let seen: unknown
  off.get('/plain', async (request) => { seen = request.mcpRouteTool; return 'ok' })
  await off.inject('/plain')
  t.equal(seen, null, 'null without the routes option too')
})

t.test('@fastify/rate-limit counts a route-backed call once with allowList', async (t) => {
  for (const skipInner of [false, true]) {
    const app = Fastify()
    t.teardown(() => app.close())
    // As the docs show it: the inner request was counted as the MCP request already.
    await app.register(rateLimit, { global: true, max: 5, timeWindow: 60_000, allowList: skipInner ? (request) => request.mcpRouteTool !== null : [] })
    await app.register(mcpCapabilities, { server: {}, serverInfo: SERVER_INFO, routes: true })
    app.get('/ping', { config: { mcp: { name: 'ping_route' } } }, async () => ({ pong: true }))
    await app.ready()
    const client = injectClient(app, { era: 'modern' })
    const results: boolean[] = []
    for (let i = 0; i < 3; i++) {
      try {
        results.push((await client.callTool('ping_route', {})).isError !== true)
      } catch {
        results.push(false)
      }
    }
    if (skipInner) t.strictSame(results, [true, true, true], 'with allowList: each MCP request counts once (discover and three calls), all served')
    else t.notSame(results, [true, true, true], 'without it each call counts twice and the limit of 5 is hit early')
  }
})
