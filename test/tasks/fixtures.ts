/** A tools module whose tools exercise every path of `runAsTask`, and an app serving it. */
import type { FastifyInstance } from 'fastify'
import { ErrorCode, McpError, runAsTask, type HandlerContext, type McpCapabilitiesOptions, type AnyServerModule } from '../../lib/index.js'
import { buildApp, type Teardown } from '../helpers/mcp-fixtures.js'

export function text (value: string): { content: Array<{ type: 'text', text: string }> } {
  return { content: [{ type: 'text', text: value }] }
}

const NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }

/** What the background work saw, for assertions. */
export interface Probe {
  /** Signals of the `slow` tasks, in order of creation. */
  signals: AbortSignal[]
  /** Resolves every `slow` task still waiting. */
  release: () => void
  /** How many times work ran (inline or as a task). */
  runs: number
}

export function tasksModule (probe: Probe): AnyServerModule {
  let waiting: Array<() => void> = []
  probe.release = () => {
    for (const resolve of waiting) resolve()
    waiting = []
  }
  const tools: Record<string, (args: Record<string, unknown>, ctx: HandlerContext) => unknown> = {
    now: () => text('at once'),
    maybe: (args, ctx) => runAsTask(ctx, (task) => {
      probe.runs++
      return text(`maybe ${String(args.label)} (${task === ctx ? 'inline' : 'task'})`)
    }),
    must: (_args, ctx) => runAsTask(ctx, () => {
      probe.runs++
      return text('must')
    }, { required: true }),
    slow: (_args, ctx) => runAsTask(ctx, (task) => new Promise((resolve) => {
      probe.runs++
      probe.signals.push(task.signal)
      task.progress(1, 2, 'halfway')
      waiting.push(() => resolve(text('slow done')))
    })),
    park: (_args, ctx) => runAsTask(ctx, (task) => new Promise((resolve) => {
      probe.signals.push(task.signal)
      waiting.push(() => resolve(text('parked done')))
    }), { required: true }),
    echo: (args, ctx) => runAsTask(ctx, () => text('e'.repeat(Number(args.size)))),
    askBig: (args, ctx) => runAsTask(ctx, async (task) => {
      await task.elicit({ message: 'q'.repeat(Number(args.size)), requestedSchema: { type: 'object', properties: {} } })
      return text('asked')
    }),
    boom: (_args, ctx) => runAsTask(ctx, () => { throw new Error('secret internal detail') }),
    proto: (_args, ctx) => runAsTask(ctx, () => { throw new McpError(ErrorCode.InvalidParams, 'bad input', { field: 'x' }) }),
    toolError: (_args, ctx) => runAsTask(ctx, () => ({ isError: true, content: [{ type: 'text', text: 'tool error' }] })),
    notObject: (_args, ctx) => runAsTask(ctx, () => 42),
    ask: (_args, ctx) => runAsTask(ctx, async (task) => {
      const answer = await task.elicit({ message: 'Confirm?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } }, { key: 'confirm' })
      return text(`answer ${answer.action} ${JSON.stringify(answer.content ?? {})}`)
    }),
    two: (_args, ctx) => runAsTask(ctx, async (task) => {
      const [a, b] = await Promise.all([
        task.elicit({ message: 'A?', requestedSchema: NAME }),
        task.elicit({ message: 'B?', requestedSchema: NAME })
      ])
      return text(`${String(a.content?.name)}+${String(b.content?.name)}`)
    }),
    sample: (_args, ctx) => runAsTask(ctx, async (task) => {
      const result = await task.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 })
      return text(String(result.model))
    }),
    mrtr: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: NAME }, { key: 'user_name' })
      const name = String(answer.content?.name)
      return runAsTask(ctx, () => text(`Hello, ${name}!`), { required: true })
    }
  }
  return {
    listTools: () => ({ tools: Object.keys(tools).map((name) => ({ name, inputSchema: { type: 'object' } })) }),
    callTool: (params: { name: string, arguments?: Record<string, unknown> }, ctx: HandlerContext) => {
      const tool = tools[params.name]
      if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`)
      return tool(params.arguments ?? {}, ctx)
    }
  }
}

export function newProbe (): Probe {
  return { signals: [], release: () => {}, runs: 0 }
}

export async function tasksApp (t: Teardown, options: Partial<McpCapabilitiesOptions> = {}, probe: Probe = newProbe()): Promise<FastifyInstance> {
  return buildApp(t, { server: tasksModule(probe), tasks: true, ...options })
}
