/**
 * The server the official conformance suite (@modelcontextprotocol/conformance)
 * tests: a server module carrying the fixtures its scenarios call, by the names
 * they expect (tools `test_*`, resources `test://...`, prompts `test_*_prompt`,
 * completions).
 *
 *   npm run start:conformance        # HOST (127.0.0.1), PORT (3000), MCP_ERA (dual)
 *
 * The tasks extension is on: the `tasks-*` scenarios' tools (`greet`,
 * `slow_compute`, `failing_job`, `protocol_error_job`, `confirm_delete`,
 * `multi_input`, `test_tool_with_task`) hand their work to `runAsTask`. Progress,
 * log and change notifications are emitted through `ctx.progress`, `ctx.log`
 * and `fastify.mcp.notify*()`; input from the client (elicitation, sampling,
 * roots) comes through `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots`,
 * the same code for both eras: a request on the response stream (legacy), an
 * `input_required` round (2026-07-28).
 */
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { scaleFromEnv } from './scale-from-env.js'
import mcpCapabilities, { ErrorCode, McpError, resourceNotFound, runAsTask, type ElicitResult, type HandlerContext, type AnyServerModule, type McpCapabilitiesOptions, type TaskCreatedResult } from '../lib/index.js'

export const CONFORMANCE_ERAS = ['legacy', 'modern', 'dual'] as const
export type ConformanceEra = typeof CONFORMANCE_ERAS[number]

export const SERVER_INFO = Object.freeze({ name: 'fastify-mcp-capabilities-conformance', version: '1.0.0' })

/** A 1x1 red PNG. */
export const RED_PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC'
/** 10 ms of 8 kHz, 8-bit mono silence. */
export const SILENT_WAV = silentWav(80)

const NO_ARGS = Object.freeze({ type: 'object', properties: {} })

interface Content { type: string, [key: string]: unknown }
interface ToolResult { content: Content[], isError?: boolean }
interface CallToolParams { name?: unknown, arguments?: Record<string, unknown>, _meta?: Record<string, unknown>, requestState?: unknown }

interface Tool {
  description: string
  inputSchema?: Record<string, unknown>
  call: (args: Record<string, unknown>, ctx: HandlerContext, params: CallToolParams) => ToolResult | Promise<ToolResult | TaskCreatedResult> | Promise<Record<string, unknown>>
}

/** Change pushes the trigger tools ask for; wired to `fastify.mcp` by `buildConformanceApp`. */
export interface ConformanceHooks {
  toolsChanged?: () => unknown
  promptsChanged?: () => unknown
}

/** JSON Schema 2020-12 keywords a server must pass through untouched (scenario json-schema-2020-12). */
const JSON_SCHEMA_2020_12_INPUT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: {
    address: {
      $anchor: 'addressDef',
      type: 'object',
      properties: { street: { type: 'string' }, city: { type: 'string' } }
    }
  },
  properties: {
    name: { type: 'string' },
    address: { $ref: '#/$defs/address' },
    contactMethod: { type: 'string', enum: ['phone', 'email'] },
    phone: { type: 'string' },
    email: { type: 'string' }
  },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false
}

function text (value: string): ToolResult {
  return { content: [{ type: 'text', text: value }] }
}

/** One required string field, the form most input_required fixtures ask for. */
function askString (name: string): Record<string, unknown> {
  return { type: 'object', properties: { [name]: { type: 'string' } }, required: [name] }
}

function describeElicitation (result: ElicitResult): string {
  return `action=${result.action}, content=${JSON.stringify(result.content ?? {})}`
}

function sampledText (content: unknown): string {
  const block = Array.isArray(content) ? content[0] : content
  return block !== null && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string'
    ? (block as { text: string }).text
    : JSON.stringify(block)
}

const SEP1034_DEFAULTS_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe' },
    age: { type: 'integer', description: 'User age', default: 30 },
    score: { type: 'number', description: 'User score', default: 95.5 },
    status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', description: 'Verification status', default: true }
  }
}

const SEP1330_ENUMS_SCHEMA = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      description: 'Titled single-select',
      oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }, { const: 'value3', title: 'Third Option' }]
    },
    legacyEnum: {
      type: 'string',
      description: 'Legacy titled single-select (enumNames, deprecated)',
      enum: ['opt1', 'opt2', 'opt3'],
      enumNames: ['Option One', 'Option Two', 'Option Three']
    },
    untitledMulti: {
      type: 'array',
      description: 'Untitled multi-select',
      items: { type: 'string', enum: ['option1', 'option2', 'option3'] }
    },
    titledMulti: {
      type: 'array',
      description: 'Titled multi-select',
      items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }, { const: 'value3', title: 'Third Choice' }] }
    }
  }
}

/** The confirmation the request-state and tampered-state scenarios answer. */
const CONFIRM = { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } }

function sleep (ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** Sleeps, or rejects as soon as `signal` aborts (a cancelled task stops waiting). */
function sleepUnless (ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

/** A yes/no confirmation, the form the tasks scenarios answer with `{ confirm: true }`. */
const CONFIRM_DELETE_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] }

/** Builds the conformance server module. Hooks let the trigger tools push list changes. */
export function buildConformanceServer (hooks: ConformanceHooks = {}): AnyServerModule {
  // tools/list keeps this order; http-header-validation calls the first tool with no arguments.
  const tools: Record<string, Tool> = {
    test_simple_text: {
      description: 'Returns a simple text content block',
      call: () => text('This is a simple text response for testing.')
    },
    test_image_content: {
      description: 'Returns an image content block',
      call: () => ({ content: [{ type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' }] })
    },
    test_audio_content: {
      description: 'Returns an audio content block',
      call: () => ({ content: [{ type: 'audio', data: SILENT_WAV, mimeType: 'audio/wav' }] })
    },
    test_embedded_resource: {
      description: 'Returns an embedded resource content block',
      call: () => ({
        content: [{
          type: 'resource',
          resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' }
        }]
      })
    },
    test_multiple_content_types: {
      description: 'Returns text, image and embedded resource content blocks',
      call: () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) }
          }
        ]
      })
    },
    test_tool_with_logging: {
      description: 'Emits three info log messages while it runs',
      call: async (_args, ctx) => {
        const steps = ['Tool execution started', 'Tool processing data', 'Tool execution completed']
        for (const [i, step] of steps.entries()) {
          if (i > 0) await sleep(50)
          ctx.log('info', step, 'conformance')
        }
        return text('Tool with logging executed successfully')
      }
    },
    test_tool_with_progress: {
      description: 'Reports progress 0, 50 and 100 of 100 when the request carries a progress token',
      call: async (_args, ctx) => {
        for (const [i, step] of [0, 50, 100].entries()) {
          if (i > 0) await sleep(50)
          ctx.progress(step, 100, `Completed step ${step} of 100`)
        }
        return text('Tool with progress executed successfully')
      }
    },
    test_error_handling: {
      description: 'Always fails with a tool error (isError: true)',
      call: () => ({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] })
    },
    test_missing_capability: {
      description: 'Needs the client sampling capability; rejects requests that do not declare it',
      call: (_args, ctx) => {
        ctx.requireClientCapabilities('sampling')
        return text('The client declared sampling')
      }
    },
    test_streaming_elicitation: {
      description: 'Needs the client elicitation capability; answers on the request stream',
      call: (_args, ctx) => {
        ctx.requireClientCapabilities('elicitation')
        return text('Streaming complete')
      }
    },
    test_logging_tool: {
      description: 'Logs one info message; the endpoint sends it only when the request asked for logs',
      call: async (_args, ctx) => {
        ctx.log('info', 'Diagnostic trace logging activated', 'conformance')
        return text('Logging evaluated')
      }
    },
    test_trigger_tool_change: {
      description: 'Announces a tools list change to open subscriptions',
      call: () => {
        hooks.toolsChanged?.()
        return text('notifications/tools/list_changed published')
      }
    },
    test_trigger_prompt_change: {
      description: 'Announces a prompts list change to open subscriptions',
      call: () => {
        hooks.promptsChanged?.()
        return text('notifications/prompts/list_changed published')
      }
    },
    json_schema_2020_12_tool: {
      description: 'Declares an input schema that uses JSON Schema 2020-12 keywords',
      inputSchema: JSON_SCHEMA_2020_12_INPUT,
      call: (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`)
    },
    test_sampling: {
      description: 'Asks the client\'s LLM to answer the prompt (sampling/createMessage)',
      inputSchema: { type: 'object', properties: { prompt: { type: 'string', description: 'The prompt to send to the LLM' } }, required: ['prompt'] },
      call: async (args, ctx) => {
        const prompt = typeof args.prompt === 'string' ? args.prompt : ''
        const result = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 })
        return text(`LLM response: ${sampledText(result.content)}`)
      }
    },
    test_elicitation: {
      description: 'Asks the user for a username and an email (elicitation/create)',
      inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'The message to show the user' } }, required: ['message'] },
      call: async (args, ctx) => {
        const result = await ctx.elicit({
          message: typeof args.message === 'string' ? args.message : 'Please provide your information',
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: 'User\'s response' },
              email: { type: 'string', description: 'User\'s email address' }
            },
            required: ['username', 'email']
          }
        })
        return text(`User response: ${describeElicitation(result)}`)
      }
    },
    test_elicitation_sep1034_defaults: {
      description: 'Elicits a form whose fields all carry default values (SEP-1034)',
      call: async (_args, ctx) => {
        const result = await ctx.elicit({ message: 'Please review these defaults', requestedSchema: SEP1034_DEFAULTS_SCHEMA })
        return text(`Elicitation completed: ${describeElicitation(result)}`)
      }
    },
    test_elicitation_sep1330_enums: {
      description: 'Elicits a form with every enum variant (SEP-1330)',
      call: async (_args, ctx) => {
        const result = await ctx.elicit({ message: 'Please pick some options', requestedSchema: SEP1330_ENUMS_SCHEMA })
        return text(`Elicitation completed: ${describeElicitation(result)}`)
      }
    },
    test_input_required_result_elicitation: {
      description: 'Asks the user\'s name, then greets them',
      call: async (_args, ctx) => {
        const result = await ctx.elicit({ message: 'What is your name?', requestedSchema: askString('name') }, { key: 'user_name' })
        return text(`Hello, ${String(result.content?.name ?? 'stranger')}!`)
      }
    },
    test_input_required_result_sampling: {
      description: 'Asks the client\'s LLM a question and returns its answer',
      call: async (_args, ctx) => {
        const result = await ctx.createMessage({
          messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
          maxTokens: 100
        }, { key: 'capital_question' })
        return text(`Sampling response: ${sampledText(result.content)}`)
      }
    },
    test_input_required_result_list_roots: {
      description: 'Lists the client\'s roots',
      call: async (_args, ctx) => {
        const { roots } = await ctx.listRoots({ key: 'client_roots' })
        return text(`Client roots: ${roots.map((r) => r.uri).join(', ') || '(none)'}`)
      }
    },
    test_input_required_result_request_state: {
      description: 'Asks for a confirmation; the retry carries the signed requestState',
      call: async (_args, ctx, params) => {
        const result = await ctx.elicit(CONFIRM, { key: 'confirm' })
        // The endpoint rejects a retry whose requestState fails verification, so one that reaches here is genuine.
        const state = typeof params.requestState === 'string' ? 'state-ok' : 'no-state'
        return text(`Confirmed: ${String(result.content?.ok)} (${state})`)
      }
    },
    test_input_required_result_multiple_inputs: {
      description: 'Asks for a name, a sampled greeting and the roots in one round',
      call: async (_args, ctx) => {
        const [name, greeting, roots] = await Promise.all([
          ctx.elicit({ message: 'What is your name?', requestedSchema: askString('name') }, { key: 'user_name' }),
          ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }, { key: 'greeting' }),
          ctx.listRoots({ key: 'client_roots' })
        ])
        return text(`${sampledText(greeting.content)} ${String(name.content?.name)} (${roots.roots.length} roots)`)
      }
    },
    test_input_required_result_multi_round: {
      description: 'Asks a name, then a favourite colour, in two rounds',
      call: async (_args, ctx) => {
        const name = await ctx.elicit({ message: 'Step 1: What is your name?', requestedSchema: askString('name') }, { key: 'step1' })
        const color = await ctx.elicit({ message: 'Step 2: What is your favorite color?', requestedSchema: askString('color') }, { key: 'step2' })
        return text(`${String(name.content?.name)} likes ${String(color.content?.color)}`)
      }
    },
    test_input_required_result_tampered_state: {
      description: 'Asks for a confirmation; a retry with an altered requestState is rejected',
      call: async (_args, ctx) => {
        const result = await ctx.elicit(CONFIRM, { key: 'confirm' })
        return text(`Confirmed: ${String(result.content?.ok)}`)
      }
    },
    greet: {
      description: 'Greets by name, at once (never a task)',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      call: (args) => text(`Hello, ${String(args.name ?? 'World')}!`)
    },
    slow_compute: {
      description: 'Sleeps `seconds` then answers; a task when the client declared the tasks extension',
      inputSchema: { type: 'object', properties: { seconds: { type: 'number' }, label: { type: 'string' } } },
      call: (args, ctx) => runAsTask(ctx, async (task) => {
        const seconds = typeof args.seconds === 'number' && args.seconds > 0 ? Math.min(args.seconds, 300) : 0
        await sleepUnless(seconds * 1000, task.signal)
        return text(`Computed ${String(args.label ?? 'result')} after ${seconds}s`)
      })
    },
    failing_job: {
      description: 'Runs only as a task; reports a tool error (isError) after about a second',
      call: (_args, ctx) => runAsTask(ctx, async (task) => {
        await sleepUnless(1000, task.signal)
        return { isError: true, content: [{ type: 'text', text: 'The job failed' }] }
      }, { required: true })
    },
    protocol_error_job: {
      description: 'Runs as a task that ends in a protocol (JSON-RPC) error',
      call: (_args, ctx) => runAsTask(ctx, async (task) => {
        await sleepUnless(200, task.signal)
        throw new McpError(ErrorCode.InternalError, 'The job crashed')
      })
    },
    confirm_delete: {
      description: 'Asks the user to confirm deleting `filename`, then answers; a task when possible',
      inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
      call: (args, ctx) => runAsTask(ctx, async (task) => {
        const filename = String(args.filename ?? 'the file')
        const answer = await task.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_DELETE_SCHEMA }, { key: 'confirm_delete' })
        const confirmed = answer.action === 'accept' && answer.content?.confirm === true
        return text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`)
      })
    },
    multi_input: {
      description: 'Asks two questions at once, then answers with both; a task when possible',
      call: (_args, ctx) => runAsTask(ctx, async (task) => {
        const [first, second] = await Promise.all([
          task.elicit({ message: 'First name?', requestedSchema: askString('name') }, { key: 'first' }),
          task.elicit({ message: 'Second name?', requestedSchema: askString('name') }, { key: 'second' })
        ])
        return text(`Got ${String(first.content?.name)} and ${String(second.content?.name)}`)
      })
    },
    test_tool_with_task: {
      description: 'Asks the user\'s name (multi round-trip), then greets them from a task; needs the tasks extension',
      call: async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'What is your name?', requestedSchema: askString('name') }, { key: 'user_name' })
        const name = String(answer.content?.name ?? 'stranger')
        return runAsTask(ctx, () => text(`Hello, ${name}!`), { required: true })
      }
    },
    test_input_required_result_capabilities: {
      description: 'Asks only for what the client declared: elicitation and/or sampling',
      call: async (_args, ctx) => {
        const caps = ctx.clientCapabilities
        const asks: Array<Promise<unknown>> = []
        if (caps.elicitation !== undefined) asks.push(ctx.elicit({ message: 'What is your name?', requestedSchema: askString('name') }, { key: 'user_name' }))
        if (caps.sampling !== undefined) {
          asks.push(ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 }, { key: 'hello' }))
        }
        await Promise.all(asks)
        return text(`Received ${asks.length} inputs`)
      }
    },
    test_param_headers: {
      description: 'Mirrors its parameters into Mcp-Param-* headers (x-mcp-header); the endpoint checks them against the arguments',
      inputSchema: {
        type: 'object',
        properties: {
          region: { type: 'string', description: 'Where to run', 'x-mcp-header': 'Region' },
          priority: { type: 'integer', description: 'How urgent', 'x-mcp-header': 'Priority' },
          dryRun: { type: 'boolean', description: 'Only pretend', 'x-mcp-header': 'Dry-Run' }
        },
        required: ['region']
      },
      call: (args) => text(`Ran in ${String(args.region)}`)
    }
  }

  const resources = [
    { uri: 'test://static-text', name: 'static-text', title: 'Static Text Resource', description: 'A static text resource', mimeType: 'text/plain' },
    { uri: 'test://static-binary', name: 'static-binary', title: 'Static Binary Resource', description: 'A static binary resource (a PNG image)', mimeType: 'image/png' },
    { uri: 'test://watched-resource', name: 'watched-resource', title: 'Watched Resource', description: 'A resource clients may subscribe to', mimeType: 'text/plain' }
  ]
  const templateUri = /^test:\/\/template\/([^/]+)\/data$/

  function read (uri: string): Record<string, unknown> | undefined {
    switch (uri) {
      case 'test://static-text':
        return { uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }
      case 'test://static-binary':
        return { uri, mimeType: 'image/png', blob: RED_PIXEL_PNG }
      case 'test://watched-resource':
        return { uri, mimeType: 'text/plain', text: 'Watched resource content' }
    }
    const match = templateUri.exec(uri)
    if (match !== null) {
      const id = decodeURIComponent(match[1] ?? '')
      return { uri, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }
    }
    return undefined
  }

  function knownResource (params: { uri?: unknown }): string {
    const uri = params.uri
    if (typeof uri !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: uri must be a string')
    // the era's answer: -32002 in legacy revisions, -32602 with data.uri in 2026-07-28 (SEP-2164)
    if (read(uri) === undefined) throw resourceNotFound(uri)
    return uri
  }

  const prompts = [
    { name: 'test_simple_prompt', title: 'Simple Test Prompt', description: 'A prompt without arguments' },
    {
      name: 'test_prompt_with_arguments',
      title: 'Prompt With Arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        { name: 'arg1', description: 'First test argument', required: true },
        { name: 'arg2', description: 'Second test argument', required: true }
      ]
    },
    {
      name: 'test_prompt_with_embedded_resource',
      title: 'Prompt With Embedded Resource',
      description: 'A prompt that embeds a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }]
    },
    { name: 'test_prompt_with_image', title: 'Prompt With Image', description: 'A prompt that includes an image' },
    { name: 'test_input_required_result_prompt', title: 'Prompt Needing Input', description: 'Asks the user for context before it renders' }
  ]

  function requiredArgument (args: Record<string, unknown> | undefined, name: string): string {
    const value = args?.[name]
    if (typeof value !== 'string') throw new McpError(ErrorCode.InvalidParams, `Invalid params: argument "${name}" is required`)
    return value
  }

  const completions: Record<string, readonly string[]> = {
    'ref/prompt test_prompt_with_arguments arg1': ['paris', 'park', 'party'],
    'ref/prompt test_prompt_with_arguments arg2': ['hello', 'help', 'world'],
    'ref/resource test://template/{id}/data id': ['1', '2', '3', '123']
  }

  return {
    listTools () {
      return {
        tools: Object.entries(tools).map(([name, tool]) => ({
          name,
          description: tool.description,
          inputSchema: tool.inputSchema ?? NO_ARGS
        }))
      }
    },

    async callTool (params: CallToolParams, ctx: HandlerContext) {
      const name = params.name
      const tool = typeof name === 'string' && Object.hasOwn(tools, name) ? tools[name] : undefined
      if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${String(name)}`)
      return tool.call(params.arguments ?? {}, ctx, params)
    },

    listResources () {
      return { resources }
    },

    listResourceTemplates () {
      return {
        resourceTemplates: [{
          uriTemplate: 'test://template/{id}/data',
          name: 'template',
          title: 'Resource Template',
          description: 'A template whose id is substituted into the content',
          mimeType: 'application/json'
        }]
      }
    },

    readResource (params: { uri?: unknown }) {
      const uri = knownResource(params)
      return { contents: [read(uri)] }
    },

    // Stateless: there is nothing to remember per client; the endpoint delivers updates.
    subscribeResource (params: { uri?: unknown }) {
      knownResource(params)
      return {}
    },

    unsubscribeResource (params: { uri?: unknown }) {
      knownResource(params)
      return {}
    },

    listPrompts () {
      return { prompts }
    },

    async getPrompt (params: { name?: unknown, arguments?: Record<string, unknown> }, ctx: HandlerContext) {
      switch (params.name) {
        case 'test_simple_prompt':
          return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] }
        case 'test_prompt_with_arguments': {
          const arg1 = requiredArgument(params.arguments, 'arg1')
          const arg2 = requiredArgument(params.arguments, 'arg2')
          return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }] }
        }
        case 'test_prompt_with_embedded_resource': {
          const uri = requiredArgument(params.arguments, 'resourceUri')
          return {
            messages: [
              { role: 'user', content: { type: 'resource', resource: { uri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
              { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } }
            ]
          }
        }
        case 'test_input_required_result_prompt': {
          const answer = await ctx.elicit({ message: 'What context should the prompt use?', requestedSchema: askString('context') }, { key: 'user_context' })
          return { messages: [{ role: 'user', content: { type: 'text', text: `Answer using this context: ${String(answer.content?.context ?? '')}` } }] }
        }
        case 'test_prompt_with_image':
          return {
            messages: [
              { role: 'user', content: { type: 'image', data: RED_PIXEL_PNG, mimeType: 'image/png' } },
              { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } }
            ]
          }
      }
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${String(params.name)}`)
    },

    complete (params: { ref?: { type?: unknown, name?: unknown, uri?: unknown }, argument?: { name?: unknown, value?: unknown } }) {
      const ref = params.ref
      const key = `${String(ref?.type)} ${String(ref?.type === 'ref/resource' ? ref.uri : ref?.name)} ${String(params.argument?.name)}`
      const prefix = typeof params.argument?.value === 'string' ? params.argument.value : ''
      const values = (completions[key] ?? []).filter((v) => v.startsWith(prefix))
      return { completion: { values, total: values.length, hasMore: false } }
    },

    // The endpoint validates the level and applies it to what `ctx.log` sends.
    setLogLevel () {
      return {}
    }
  }
}

export interface ConformanceAppOptions {
  era?: ConformanceEra
  /** Serve the tasks extension; default true. */
  tasks?: boolean
  logger?: FastifyServerOptions['logger']
  /** Shared parts and the requestState secret, for running as one of several instances (see scale-from-env.ts). */
  scale?: Pick<McpCapabilitiesOptions, 'scale' | 'requestState'>
}

/** A Fastify app serving the conformance module at /mcp. */
export async function buildConformanceApp (options: ConformanceAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({ logger: options.logger ?? false })
  const hooks: ConformanceHooks = {
    toolsChanged: () => app.mcp.notifyToolsChanged(),
    promptsChanged: () => app.mcp.notifyPromptsChanged()
  }
  await app.register(mcpCapabilities, {
    server: buildConformanceServer(hooks),
    serverInfo: SERVER_INFO,
    era: options.era ?? 'dual',
    path: '/mcp',
    instructions: 'Fixtures for the MCP conformance suite.',
    tasks: options.tasks ?? true,
    ...options.scale
  })
  return app
}

export function parseEra (value: string | undefined): ConformanceEra {
  if (value === undefined || value === '') return 'dual'
  const era = CONFORMANCE_ERAS.find((e) => e === value)
  if (era === undefined) throw new Error(`MCP_ERA must be one of ${CONFORMANCE_ERAS.join(', ')}, got "${value}"`)
  return era
}

function silentWav (samples: number): string {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0)
  header.writeUInt32LE(36 + samples, 4)
  header.write('WAVE', 8)
  header.write('fmt ', 12)
  header.writeUInt32LE(16, 16) // fmt chunk size
  header.writeUInt16LE(1, 20) // PCM
  header.writeUInt16LE(1, 22) // mono
  header.writeUInt32LE(8000, 24) // sample rate
  header.writeUInt32LE(8000, 28) // byte rate
  header.writeUInt16LE(1, 32) // block align
  header.writeUInt16LE(8, 34) // bits per sample
  header.write('data', 36)
  header.writeUInt32LE(samples, 40)
  return Buffer.concat([header, Buffer.alloc(samples, 128)]).toString('base64')
}

function isMain (): boolean {
  const entry = process.argv[1]
  if (entry === undefined) return false
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url))
  } catch {
    return false
  }
}

if (isMain()) {
  const host = process.env.HOST || '127.0.0.1'
  const port = Number(process.env.PORT || 3000)
  const era = parseEra(process.env.MCP_ERA)
  // REDIS_URL and MCP_REQUEST_STATE_SECRET: one of several instances sharing a Redis; in memory without them.
  const app = await buildConformanceApp({ era, logger: { level: process.env.LOG_LEVEL || 'info' }, scale: await scaleFromEnv() })
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
  }
  const address = await app.listen({ host, port })
  // Tests read this line to find the endpoint when PORT=0.
  console.log(`MCP endpoint (${era}): ${address}/mcp`)
}
