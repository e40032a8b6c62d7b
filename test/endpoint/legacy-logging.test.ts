/**
 * Legacy logging without extra code: `logging` is advertised whatever the
 * module, the endpoint answers `logging/setLevel` itself (telling the
 * module's own `setLogLevel` too, when it has one) and keeps the level per
 * caller (principal or credential; anonymous callers share one), bounded.
 */
import t from 'tap'
import { defineTools, McpError, ErrorCode, type HandlerContext, type LogLevel } from '../../lib/index.js'
import { injectClient, type InjectClient } from '../../lib/testing/index.js'
import { CallerLogLevels } from '../../lib/endpoint/caller-log-levels.js'
import { serve } from '../definitions/helpers.js'

const tools = defineTools({
  chatty: {
    // ctx annotated: a lone tool with a block-bodied handler defeats defineTools' inference today (dx-schemas' area)
    handler: (_args: Record<string, never>, ctx: HandlerContext) => {
      for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, `at ${level}`)
      return 'done'
    }
  }
})

/** The levels of the log messages one call streams back. */
async function levelsOf (client: InjectClient<'legacy'>): Promise<string[]> {
  const levels: string[] = []
  await client.callTool('chatty', {}, { onNotification: (n) => { if (n.method === 'notifications/message') levels.push(String(n.params?.level)) } })
  return levels
}

t.test('a module without setLogLevel advertises logging and answers logging/setLevel', async (t) => {
  const { app } = await serve(t, tools)
  t.strictSame(app.mcp.capabilities.legacy.logging, {})
  const client = injectClient(app, { era: 'legacy' })
  const init = await client.discover()
  t.strictSame(init.capabilities.logging, {}, 'initialize shows logging')
  t.strictSame(await levelsOf(client), [], 'before any logging/setLevel nothing is sent')
  t.strictSame(await client.request('logging/setLevel', { level: 'info' }), {}, 'answered by the endpoint')
  t.strictSame(await levelsOf(client), ['info', 'warning', 'error'], 'ctx.log reaches the client at and above its level')
  await t.rejects(client.request('logging/setLevel', { level: 'loud' }), { code: ErrorCode.InvalidParams })
  t.strictSame(await levelsOf(client), ['info', 'warning', 'error'], 'a refused level changes nothing')
})

t.test('the level belongs to the caller who set it', async (t) => {
  const { app } = await serve(t, tools)
  const alice = injectClient(app, { era: 'legacy', headers: { authorization: 'Bearer alice' } })
  const bob = injectClient(app, { era: 'legacy', headers: { authorization: 'Bearer bob' } })
  const anonymous = injectClient(app, { era: 'legacy' })
  await alice.setLogLevel('debug')
  t.strictSame(await levelsOf(bob), [], 'another credential gets nothing from alice\'s level')
  t.strictSame(await levelsOf(anonymous), [], 'nor does an anonymous caller')
  await bob.setLogLevel('error')
  t.strictSame(await levelsOf(alice), ['debug', 'info', 'warning', 'error'], 'alice keeps hers')
  t.strictSame(await levelsOf(bob), ['error'])
})

t.test('anonymous callers cannot be told apart: they share one level', async (t) => {
  const { app } = await serve(t, tools)
  await injectClient(app, { era: 'legacy' }).setLogLevel('warning')
  t.strictSame(await levelsOf(injectClient(app, { era: 'legacy' })), ['warning', 'error'])
  t.strictSame(await levelsOf(injectClient(app, { era: 'legacy', headers: { authorization: 'Bearer x' } })), [], 'a credential is another caller')
})

t.test('the module\'s own setLogLevel is told, and can refuse', async (t) => {
  const told: Array<[unknown, string]> = []
  const server = {
    ...tools,
    setLogLevel (params: { level: LogLevel }, ctx: HandlerContext) {
      told.push([params.level, ctx.method])
      if (params.level === 'debug') throw new McpError(ErrorCode.InvalidParams, 'debug logging is not allowed here')
      return {}
    }
  }
  const { app } = await serve(t, server)
  const client = injectClient(app, { era: 'legacy' })
  await client.setLogLevel('info')
  await t.rejects(client.setLogLevel('debug'), { code: ErrorCode.InvalidParams, message: 'debug logging is not allowed here' })
  t.strictSame(told, [['info', 'logging/setLevel'], ['debug', 'logging/setLevel']])
  t.strictSame(await levelsOf(client), ['info', 'warning', 'error'], 'a refused level is not applied')
})

t.test('capabilities: { logging: false } switches legacy logging off', async (t) => {
  const { app } = await serve(t, { ...tools, capabilities: { tools: {}, logging: false } })
  t.equal(app.mcp.capabilities.legacy.logging, undefined)
  await t.rejects(injectClient(app, { era: 'legacy' }).setLogLevel('info'), { code: ErrorCode.MethodNotFound })
})

t.test('per-caller levels are bounded: the least recently used caller is forgotten', async (t) => {
  const levels = new CallerLogLevels(3)
  levels.set('a', 'debug')
  levels.set('b', 'info')
  levels.set('c', 'error')
  t.equal(levels.get('a'), 'debug', 'a used: now the most recent')
  levels.set('d', 'warning')
  t.equal(levels.size, 3)
  t.equal(levels.get('b'), undefined, 'b, least recently used, was forgotten')
  t.strictSame(['a', 'c', 'd'].map((c) => levels.get(c)), ['debug', 'error', 'warning'])
  levels.set('c', 'critical')
  t.equal(levels.size, 3, 'setting again replaces')
  t.equal(levels.get('c'), 'critical')
})

t.test('many distinct credentials: each keeps its own level', async (t) => {
  const { app } = await serve(t, tools)
  const { DEFAULT_MAX_LOG_LEVEL_CALLERS } = await import('../../lib/endpoint/caller-log-levels.js')
  t.ok(DEFAULT_MAX_LOG_LEVEL_CALLERS >= 1000 && DEFAULT_MAX_LOG_LEVEL_CALLERS <= 100_000, `a sensible bound (${DEFAULT_MAX_LOG_LEVEL_CALLERS})`)
  // A few hundred distinct credentials each set a level: each still gets its own.
  const clients = Array.from({ length: 200 }, (_, i) => injectClient(app, { era: 'legacy', headers: { authorization: `Bearer user-${i}` } }))
  for (const [i, client] of clients.entries()) await client.setLogLevel(i % 2 === 0 ? 'error' : 'warning')
  t.strictSame(await levelsOf(clients[0] as InjectClient<'legacy'>), ['error'])
  t.strictSame(await levelsOf(clients[1] as InjectClient<'legacy'>), ['warning', 'error'])
})
