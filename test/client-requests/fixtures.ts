/**
 * A server module whose tools, prompt and resource ask the client for input
 * through `ctx`, for the client-request tests of both eras, plus the answers
 * a client gives.
 */
import type { AnyServerModule, HandlerContext } from '../../lib/index.js'
import { inputRequired } from '../../lib/index.js'

export const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
export const COLOR_SCHEMA = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] }
export const ASK_NAME = { message: 'Your name?', requestedSchema: NAME_SCHEMA }
export const ASK_COLOR = { message: 'Favourite colour?', requestedSchema: COLOR_SCHEMA }
export const SAMPLE = { messages: [{ role: 'user' as const, content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 }

export const accept = (content: Record<string, unknown>) => ({ action: 'accept', content })
export const sampled = (text: string) => ({ role: 'assistant', content: { type: 'text', text }, model: 'test-model', stopReason: 'endTurn' })
export const ROOTS = { roots: [{ uri: 'file:///work', name: 'work' }] }

export const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} }

function text (value: string) {
  return { content: [{ type: 'text', text: value }] }
}

type Tool = (args: Record<string, unknown>, ctx: HandlerContext) => unknown

export interface Probe {
  /** What handlers observed, for assertions (e.g. the error a client request rejected with). */
  seen: unknown[]
  /** Counts handler runs per tool. */
  runs: Record<string, number>
  /** A question the `changing` tool asks; tests change it between rounds. */
  question: string
}

export function clientRequestModule (probe: Probe = { seen: [], runs: {}, question: 'Q1' }): AnyServerModule {
  const tools: Record<string, Tool> = {
    // One question, by explicit key.
    greet: async (_args, ctx) => {
      const r = await ctx.elicit(ASK_NAME, { key: 'name' })
      return text(`Hello, ${String(r.content?.name)}`)
    },
    // Three kinds at once (asked in one round), auto keys.
    everything: async (_args, ctx) => {
      const [name, hi, roots] = await Promise.all([ctx.elicit(ASK_NAME), ctx.createMessage(SAMPLE), ctx.listRoots()])
      return text(`${String(name.content?.name)} / ${JSON.stringify(hi.content)} / ${roots.roots.map((r) => r.uri).join(',')}`)
    },
    // Three sequential rounds.
    rounds: async (_args, ctx) => {
      const name = await ctx.elicit(ASK_NAME, { key: 'r1' })
      const color = await ctx.elicit(ASK_COLOR, { key: 'r2' })
      const roots = await ctx.listRoots({ key: 'r3' })
      return text(`${String(name.content?.name)} likes ${String(color.content?.color)} in ${roots.roots.length} roots`)
    },
    // Two auto-keyed elicitations in sequence: elicitation-1, elicitation-2.
    twice: async (_args, ctx) => {
      const a = await ctx.elicit(ASK_NAME)
      const b = await ctx.elicit(ASK_COLOR)
      return text(`${String(a.content?.name)}+${String(b.content?.color)}`)
    },
    // The question depends on server-side data a test changes between rounds.
    changing: async (_args, ctx) => {
      const r = await ctx.elicit({ message: probe.question, requestedSchema: NAME_SCHEMA }, { key: 'q' })
      return text(`answered ${String(r.content?.name)}`)
    },
    sample: async (args, ctx) => {
      const r = await ctx.createMessage({ ...SAMPLE, ...(args.tools === true ? { tools: [{ name: 't', inputSchema: { type: 'object' } }] } : {}) })
      return text(`model said ${JSON.stringify(r.content)}`)
    },
    roots: async (_args, ctx) => text(`roots: ${(await ctx.listRoots()).roots.map((r) => r.uri).join(',')}`),
    form: async (_args, ctx) => {
      const r = await ctx.elicit({ mode: 'form', ...ASK_NAME })
      return text(`form ${r.action}`)
    },
    url: async (_args, ctx) => {
      const r = await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' })
      return text(`url ${r.action}`)
    },
    // Catches the failure and reports it instead (what a careful handler does).
    careful: async (_args, ctx) => {
      try {
        const r = await ctx.elicit(ASK_NAME)
        return text(`got ${r.action}`)
      } catch (err) {
        probe.seen.push(err)
        return { isError: true, content: [{ type: 'text', text: `could not ask: ${(err as Error).message}` }] }
      }
    },
    dupe: async (_args, ctx) => {
      await Promise.all([ctx.elicit(ASK_NAME, { key: 'k' }), ctx.elicit(ASK_COLOR, { key: 'k' })])
      return text('unreachable')
    },
    // Built by hand: its own state comes back verified as ctx.requestState.
    manual: (args, ctx) => {
      if (ctx.requestState === undefined) {
        return inputRequired({ inputRequests: { pick: { method: 'elicitation/create', params: ASK_NAME } }, requestState: `step-1:${String(args.tag ?? '')}` })
      }
      return text(`state ${ctx.requestState}, answer ${JSON.stringify((ctx.request.body as { params: { inputResponses?: unknown } }).params.inputResponses)}`)
    },
    manualSampling: () => inputRequired({ inputRequests: { s: { method: 'sampling/createMessage', params: SAMPLE } } }),
    badManual: () => ({ resultType: 'input_required', inputRequests: { x: { method: 'tools/list' } } })
  }

  return {
    listTools: () => ({ tools: Object.keys(tools).map((name) => ({ name, inputSchema: { type: 'object' } })) }),
    async callTool (params: { name: string, arguments?: Record<string, unknown> }, ctx: HandlerContext) {
      const tool = tools[params.name]
      if (tool === undefined) throw new Error(`no tool ${params.name}`)
      probe.runs[params.name] = (probe.runs[params.name] ?? 0) + 1
      return tool(params.arguments ?? {}, ctx)
    },
    listPrompts: () => ({ prompts: [{ name: 'ask' }] }),
    async getPrompt (_params: unknown, ctx: HandlerContext) {
      const r = await ctx.elicit(ASK_NAME, { key: 'who' })
      return { messages: [{ role: 'user', content: { type: 'text', text: `Write to ${String(r.content?.name)}` } }] }
    },
    listResources: () => ({ resources: [{ uri: 'file:///secret', name: 'secret' }] }),
    async readResource (params: { uri: string }, ctx: HandlerContext) {
      const roots = await ctx.listRoots({ key: 'roots' })
      return { contents: [{ uri: params.uri, mimeType: 'text/plain', text: `inside ${roots.roots.length} roots` }] }
    },
    // Not allowed to ask: completions.
    async complete (_params: unknown, ctx: HandlerContext) {
      await ctx.elicit(ASK_NAME)
      return { completion: { values: [] } }
    }
  }
}
