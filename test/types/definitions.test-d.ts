/**
 * Type-level tests for the define helpers: handler arguments come from the
 * schemas, a result that breaks the declared shape does not compile.
 * Checked by `npm run typecheck` (tsc), never run.
 */
import { Type } from '@sinclair/typebox'
import { expectTypeOf } from 'expect-type'
import type { LiveTools } from '../../lib/definitions/live.js'
import { definePrompt, definePrompts } from '../../lib/definitions/prompts.js'
import { defineResource, defineResources } from '../../lib/definitions/resources.js'
import { defineTool, defineTools, toolError } from '../../lib/definitions/tools.js'
import type { CallToolResult } from '../../lib/protocol/schemas.js'
import type { ServerModule, TaskCreatedResult } from '../../lib/server-module/contract.js'
import { runAsTask } from '../../lib/tasks/run-as-task.js'

defineTools({
  add: {
    input: Type.Object({ a: Type.Number(), b: Type.Optional(Type.String()) }),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ a: number, b?: string }>()
      return { content: [{ type: 'text', text: String(args.a) }] }
    }
  },
  count: {
    input: Type.Object({ text: Type.String() }),
    output: Type.Object({ words: Type.Integer() }),
    handler: async ({ text }) => ({ words: text.length })
  },
  none: {
    handler: (args, ctx) => {
      expectTypeOf(ctx.era).toEqualTypeOf<'legacy' | 'modern'>()
      return toolError(`no arguments: ${JSON.stringify(args)}`)
    }
  },
  refusing: {
    output: Type.Object({ ok: Type.Boolean() }),
    handler: () => toolError('not today')
  }
})

// @ts-expect-error the output shape is { words: integer }
defineTools({ count: { input: Type.Object({ text: Type.String() }), output: Type.Object({ words: Type.Integer() }), handler: () => ({ words: 'many' }) } })
// @ts-expect-error content must be an array of content blocks
defineTools({ add: { input: Type.Object({ a: Type.Number() }), handler: () => ({ content: 42 }) } })
// @ts-expect-error b is not an argument
defineTools({ add: { input: Type.Object({ a: Type.Number() }), handler: (args) => ({ content: [{ type: 'text', text: args.b }] }) } })

const tools = defineTools({ x: { handler: () => ({ content: [] }) } })
expectTypeOf(tools.callTool).returns.toEqualTypeOf<CallToolResult | Promise<CallToolResult>>()

definePrompts({
  summarise: {
    arguments: Type.Object({ id: Type.String(), style: Type.Optional(Type.String()) }),
    complete: { id: (value) => [value] },
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ id: string, style?: string }>()
      return `Summarise ${args.id}`
    }
  }
})
// @ts-expect-error a prompt answers messages or a string
definePrompts({ p: { handler: () => 42 } })

defineResources({
  readme: { uri: 'docs://readme', mimeType: 'text/markdown', read: (uri) => `read ${uri}` },
  note: {
    uriTemplate: 'notes://{folder}/note/{id}',
    complete: { id: () => ['1'] },
    read: (variables, uri) => {
      expectTypeOf(variables).toEqualTypeOf<{ folder: string, id: string }>()
      return { contents: [{ uri, text: variables.id }] }
    }
  }
})
// @ts-expect-error `rev` is not a variable of the template
defineResources({ note: { uriTemplate: 'notes://note/{id}', read: (variables) => variables.rev } })

// Raw handlers: `satisfies ServerModule` types params and checks results.
const raw = {
  listTools: () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }] }),
  callTool: (params, ctx) => {
    expectTypeOf(params.name).toEqualTypeOf<string>()
    expectTypeOf(params.arguments).toEqualTypeOf<Record<string, unknown> | undefined>()
    expectTypeOf(ctx.protocolVersion).toEqualTypeOf<string>()
    return { content: [{ type: 'text', text: String(params.arguments?.text) }] }
  },
  readResource: async ({ uri }) => ({ contents: [{ uri, text: 'x' }] }),
  listResources: () => ({ resources: [] })
} satisfies ServerModule
expectTypeOf(raw.callTool).toBeFunction()

// @ts-expect-error content must be an array of content blocks
const wrong = { listTools: () => ({ tools: [] }), callTool: () => ({ content: 42 }) } satisfies ServerModule
// @ts-expect-error a text block needs its text
const missing = { listTools: () => ({ tools: [] }), callTool: () => ({ content: [{ type: 'text' }] }) } satisfies ServerModule

// The define helpers' results are ServerModule parts, spread beside raw handlers.
const module = {
  ...defineTools({ t: { handler: () => ({ content: [] }) } }),
  ...definePrompts({ p: { handler: () => 'hi' } }),
  ...defineResources({ r: { uri: 'a://b', read: () => 'x' } }),
  setLogLevel: () => {}
} satisfies ServerModule
expectTypeOf(module).toMatchTypeOf<ServerModule>()
expectTypeOf([wrong, missing]).toBeArray()

// A callTool answering through runAsTask is a ServerModule handler too.
const tasked = {
  listTools: () => ({ tools: [] }),
  callTool: async (_params, ctx) => await runAsTask(ctx, async () => ({ content: [{ type: 'text' as const, text: 'done' }] }))
} satisfies ServerModule
// runAsTask answers what its work returns, or the CreateTaskResult.
expectTypeOf(tasked.callTool).returns.resolves.toEqualTypeOf<{ content: Array<{ type: 'text', text: string }> } | TaskCreatedResult>()
expectTypeOf(runAsTask<CallToolResult>).returns.resolves.toEqualTypeOf<CallToolResult | TaskCreatedResult>()
// Only runAsTask makes a TaskCreatedResult: an object shaped like one is not.
// @ts-expect-error a client-shaped { resultType: 'task' } is not a created task
const forged: TaskCreatedResult = { resultType: 'task', taskId: 't' }
expectTypeOf(forged).toEqualTypeOf<TaskCreatedResult>()

// A defined tool may answer with runAsTask, no cast: with `output`, its work returns the output shape (or a toolError).
defineTools({
  report: {
    output: Type.Object({ total: Type.Number() }),
    handler: (_args, ctx) => runAsTask(ctx, async () => ({ total: 3 }))
  },
  failing: {
    output: Type.Object({ total: Type.Number() }),
    handler: (_args, ctx) => runAsTask(ctx, () => toolError('no total today'), { required: true })
  },
  // without `output`: a string (one text block) or a whole CallToolResult
  plain: { handler: (_args, ctx) => runAsTask(ctx, () => 'done') },
  whole: { handler: async (_args, ctx) => await runAsTask(ctx, async () => ({ content: [{ type: 'text' as const, text: 'done' }] })) }
})
defineTool({
  output: Type.Object({ total: Type.Number() }),
  handler: (_args, ctx) => runAsTask(ctx, () => ({ total: 1 }))
})
defineTools({
  report: {
    output: Type.Object({ total: Type.Number() }),
    // @ts-expect-error the work must return the output shape
    handler: (_args, ctx) => runAsTask(ctx, async () => ({ total: 'three' }))
  }
})
// @ts-expect-error the work must return the output shape
defineTool({ output: Type.Object({ total: Type.Number() }), handler: (_args, ctx) => runAsTask(ctx, () => ({ sum: 1 })) })

// One definition per file: typed from its own schemas, collected by name, spread beside others.
const single = defineTool({
  input: Type.Object({ a: Type.Number(), b: Type.Number() }),
  output: Type.Object({ sum: Type.Number() }),
  handler: (args) => {
    expectTypeOf(args).toEqualTypeOf<{ a: number, b: number }>()
    return { sum: args.a + args.b }
  }
})
// @ts-expect-error the output shape is { sum: number }
defineTool({ output: Type.Object({ sum: Type.Number() }), handler: () => ({ sum: 'x' }) })
// @ts-expect-error c is not an argument
defineTool({ input: Type.Object({ a: Type.Number() }), handler: (args) => ({ content: [{ type: 'text', text: String(args.c) }] }) })
const bare = defineTool({
  handler: (args) => {
    expectTypeOf(args).toEqualTypeOf<Record<string, never>>()
    return { content: [] }
  }
})
const greeting = definePrompt({
  arguments: Type.Object({ who: Type.String() }),
  handler: ({ who }) => {
    expectTypeOf(who).toEqualTypeOf<string>()
    return `Hello ${who}`
  }
})
const noteFile = defineResource({
  uriTemplate: 'notes://{folder}/{id}',
  read: (variables) => {
    expectTypeOf(variables).toEqualTypeOf<{ folder: string, id: string }>()
    return variables.id
  }
})
const readmeFile = defineResource({ uri: 'docs://readme', read: (uri) => { expectTypeOf(uri).toEqualTypeOf<string>(); return '# Hi' } })
const composed = {
  ...defineTools({ single, bare }),
  ...defineTools({ other: { handler: () => ({ content: [] }) } }),
  ...definePrompts({ greeting }),
  ...defineResources({ noteFile, readmeFile })
}
expectTypeOf(composed).toBeObject()

// Runtime changes are typed like registration.
declare const live: LiveTools
live.add('late', { input: Type.Object({ q: Type.String() }), handler: ({ q }) => ({ content: [{ type: 'text', text: q }] }) })
// @ts-expect-error q is a string
live.add('late', { input: Type.Object({ q: Type.String() }), handler: ({ q }) => ({ content: [{ type: 'text', text: q * 2 }] }) })
expectTypeOf(live.remove('late')).toEqualTypeOf<Promise<void>>()
