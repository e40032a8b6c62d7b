/**
 * Hostile traffic for the fuzz test and `npm run fuzz` / `npm run soak`:
 * fast-check generators of request bodies and headers aimed at the
 * endpoint's edges (ids, methods, params, `_meta`, deep and long values,
 * headers that disagree, Mcp-Param-*, requestState), a server module whose
 * handlers reach every path that has failed before (x-mcp-header tools,
 * tools that ask for input, tasks, bad output), and the check every answer
 * must pass: never a 5xx, a well-formed JSON-RPC response (or 202 for a
 * notification) whose id is the request's whenever it had a readable one.
 */
import { Type } from '@sinclair/typebox'
import fc from 'fast-check'
import { defineResources, defineTools, ErrorCode, McpError, runAsTask, type HandlerContext, type ServerModule } from '../../lib/index.js'

export const MODERN = '2026-07-28'
const VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', MODERN]
const METHODS = [
  'initialize', 'ping', 'server/discover', 'tools/list', 'tools/call', 'resources/list', 'resources/read',
  'resources/templates/list', 'prompts/list', 'prompts/get', 'completion/complete', 'logging/setLevel',
  'resources/subscribe', 'resources/unsubscribe', 'subscriptions/listen', 'tasks/get', 'tasks/update',
  'tasks/cancel', 'tasks/result', 'notifications/initialized', 'notifications/cancelled'
]
const TOOLS = ['route', 'ask', 'task', 'bigint', 'cycle', 'toJson', 'throws', 'mcpError', 'plain', 'nope']
/** Defined tools (issue 22): a string argument `value` per built-in format, a closed object, a recursive schema. */
const FORMATS = ['email', 'date', 'time', 'date-time', 'uri', 'uri-reference', 'uuid', 'ipv4', 'ipv6', 'hostname', 'regex'] as const
const DEFINED_TOOLS = [...FORMATS.map((format) => `format_${format}`), 'strict', 'tree']
/** What the `files` resource answers if a value that walks a path ever reaches it (issue 22 item 9). */
const PATH_WALKED = 'path-walked'
/** URIs matched by the defined resources' templates, and hostile ones. */
const URIS = ['file:///a', 'db://a.b.c', 'kv://a-b', 'files://notes.txt', 'files://..%2F..%2Fetc%2Fpasswd', 'files://..', 'files://a%00b', 'nowhere://x']

/** Defined tools and resources whose checks run on client input: formats, templates, argument errors. */
function definedParts () {
  const ok = { content: [{ type: 'text' as const, text: 'ok' }] }
  const Node = Type.Recursive((self) => Type.Object({ children: Type.Array(self) }))
  const tools = defineTools({
    ...Object.fromEntries(FORMATS.map((format) => [`format_${format}`, { input: Type.Object({ value: Type.String({ format }) }), handler: () => ok }])),
    strict: { input: Type.Object({ n: Type.Integer() }, { additionalProperties: false }), handler: () => ok },
    tree: { input: Type.Object({ value: Node }), handler: () => ok }
  })
  const resources = defineResources({
    db: { uriTemplate: 'db://{schema}.{table}.{column}', read: () => 'ok' },
    kv: { uriTemplate: 'kv://{key}-{value}', read: () => 'ok' },
    files: {
      uriTemplate: 'files://{name}',
      read: ({ name }) => {
        return /[/\\\u0000-\u001f]|^\.\.?$/.test(name) ? PATH_WALKED : 'ok'
      }
    }
  })
  return { tools, resources }
}

/** Tools that reach the paths the hostile review broke. */
export function hostileModule (): ServerModule {
  const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, n: { type: 'integer', 'x-mcp-header': 'N' } } }
  const tools = TOOLS.filter((n) => n !== 'nope').map((name) => ({ name, inputSchema: name === 'route' ? schema : { type: 'object' } }))
  const outputs: Record<string, (args: Record<string, unknown>, ctx: HandlerContext) => unknown> = {
    route: (args) => ({ content: [{ type: 'text', text: String(args.region) }] }),
    ask: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
      return { content: [{ type: 'text', text: String(answer.action) }] }
    },
    task: (_args, ctx) => runAsTask(ctx, async (task) => {
      const answer = await task.elicit({ message: 'Go?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } })
      return { content: [{ type: 'text', text: String(answer.action) }] }
    }),
    bigint: () => ({ content: [], n: 1n }),
    cycle: () => {
      const value: Record<string, unknown> = { content: [] }
      value.self = value
      return value
    },
    toJson: () => ({ content: [], toJSON: () => undefined }),
    throws: () => { throw new Error('internal detail') },
    mcpError: () => { throw new McpError(ErrorCode.InvalidParams, 'bad', { n: 1n }) },
    plain: (args) => ({ content: [{ type: 'text', text: typeof args.text === 'string' ? args.text.slice(0, 10) : 'x' }] })
  }
  const defined = definedParts()
  const definedNames = new Set(DEFINED_TOOLS)
  return {
    listTools: () => ({ tools: [...tools, ...defined.tools.listTools().tools] }),
    callTool: (params: { name: string, arguments?: Record<string, unknown> }, ctx: HandlerContext) => {
      const { name, arguments: args } = params
      if (definedNames.has(name)) return defined.tools.callTool(params as never, ctx)
      const run = outputs[name]
      if (run === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 50)}`)
      return run(args !== null && typeof args === 'object' ? args : {}, ctx)
    },
    listResources: () => ({ resources: [{ uri: 'file:///a', name: 'a' }] }),
    readResource: (params: { uri: string }, ctx: HandlerContext) => params.uri === 'file:///a'
      ? { contents: [{ uri: params.uri, text: 'a' }] }
      : defined.resources.readResource(params as never, ctx),
    listPrompts: () => ({ prompts: [{ name: 'p' }] }),
    getPrompt: () => ({ messages: [] }),
    complete: () => ({ completion: { values: [] } }),
    subscribeResource: () => ({}),
    setLogLevel: () => ({})
  } as unknown as ServerModule
}

/** A value that is awkward to handle: deep, long, odd numbers, keys that look like prototype members. */
const awkward: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.integer({ min: 1, max: 6000 }).map((depth) => ({ __deep: depth })),
  fc.integer({ min: 1, max: 70_000 }).map((n) => 'x'.repeat(n)),
  // What made a format check or a template match backtrack (issue 22), and argument errors that grew with their input.
  fc.tuple(fc.constantFrom('a@{.}@', 'a@{a.} ', '{1.}', '{:}', '{a-}!', '{\\p{L}}', '{(}', 'db://{a.}', 'kv://{-}', 'files://{..%2F}', '{%}'),
    fc.integer({ min: 1, max: 20_000 })).map(([shape, n]) => shape.replace(/\{(.*)\}/, (_m, unit: string) => unit.repeat(n))),
  fc.integer({ min: 1, max: 5000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`.padEnd(40, 'k'), i]))),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 60), 1e308, true, null, '', 'é', '=?base64?eA==?=', '=?base64?!!?=',
    'constructor', 'toString', '__proto__', [], {}, { constructor: 1 }, { toString: {} }, { hasOwnProperty: 'x' })
)

const STATE = '{"jsonrpc":"2.0"}'
const CAPABILITIES = [{}, { elicitation: {} }, { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } }, { sampling: {}, roots: {} }]

/** One change that makes a well-formed request hostile. */
type Mutation =
  | { kind: 'arg' | 'param' | 'meta', key: string, value: unknown }
  | { kind: 'header', name: string, value: string | undefined }
  | { kind: 'id' | 'jsonrpc' | 'params', value: unknown }
  | { kind: 'raw', text: string }

const headerText = fc.oneof(
  fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  fc.constantFrom(...VERSIONS, ...METHODS, ...TOOLS, '=?base64?eA==?=', '=?base64?*?=', 'x'.repeat(8000))
)

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('arg' as const), key: fc.constantFrom('region', 'n', 'text', 'x', 'value'), value: awkward }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('param' as const), key: fc.constantFrom('name', 'uri', 'arguments', 'notifications', 'taskId', 'inputResponses', 'requestState', 'cursor', 'protocolVersion', 'capabilities', 'clientInfo', 'level', 'extra'), value: awkward }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('meta' as const), key: fc.constantFrom('io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/logLevel', 'progressToken'), value: awkward }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('header' as const), name: fc.constantFrom('mcp-protocol-version', 'mcp-method', 'mcp-name', 'mcp-param-region', 'mcp-param-n', 'content-type', 'accept', 'origin', 'host', 'authorization'), value: fc.option(headerText, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('id' as const, 'jsonrpc' as const, 'params' as const), value: awkward }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('raw' as const), text: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '{', '[]', 'null', STATE, '\u0000', '{"id":1}', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"x":1}}', '{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"constructor":{"prototype":{"x":1}}}}')) }) }
)

export interface HostileRequest {
  body: string
  headers: Record<string, string>
  /** The id the answer must carry, or undefined when it must have none. */
  expectedId: string | number | undefined
  /** Whether the body is a notification or response (202 allowed). */
  mayAccept: boolean
}

/** Replaces `{ __deep: n }` placeholders by n nested arrays, in the text (too deep to build as objects). */
function render (value: unknown): string {
  return JSON.stringify(value).replace(/\{"__deep":(\d+)\}/g, (_m, n: string) => '['.repeat(Number(n)) + ']'.repeat(Number(n)))
}

function readableId (text: string): { expectedId: string | number | undefined, mayAccept: boolean } {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { expectedId: undefined, mayAccept: false }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { expectedId: undefined, mayAccept: false }
  if (/"__proto__"\s*:|"constructor"\s*:\s*\{[^}]*"prototype"/.test(text)) return { expectedId: undefined, mayAccept: false }
  const v = (value as Record<string, unknown>).id
  const ok = typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v))
  return { expectedId: ok ? v as string | number : undefined, mayAccept: !Object.hasOwn(value, 'id') || Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error') }
}

function headerSafe (value: unknown): value is string {
  return typeof value === 'string' && value.length < 8000 && /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value)
}

/** One hostile request: a well-formed modern or legacy request (conforming headers) with 0-3 hostile changes. */
export const hostileRequest: fc.Arbitrary<HostileRequest> = fc.record({
  modern: fc.boolean(),
  method: fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }),
  tool: fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...TOOLS) }, { weight: 2, arbitrary: fc.constantFrom(...DEFINED_TOOLS) }),
  uri: fc.constantFrom(...URIS),
  id: fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.string({ maxLength: 8 })),
  capabilities: fc.constantFrom(...CAPABILITIES),
  legacyVersion: fc.option(fc.constantFrom(...VERSIONS.slice(0, 4)), { nil: undefined }),
  mutations: fc.array(mutation, { maxLength: 3 })
}).map(({ modern, method, tool, uri, id, capabilities, legacyVersion, mutations }) => {
  const args: Record<string, unknown> = { region: 'eu', n: 3, text: 'hi', value: 'ada@example.org' }
  const params: Record<string, unknown> = { name: tool, arguments: args, uri }
  if (method === 'initialize') Object.assign(params, { protocolVersion: legacyVersion ?? '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } })
  if (method === 'subscriptions/listen') params.notifications = { toolsListChanged: true }
  if (method.startsWith('tasks/')) params.taskId = '00000000-0000-4000-8000-000000000000'
  const meta: Record<string, unknown> = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' } }
  if (modern) params._meta = meta
  const message: Record<string, unknown> = { jsonrpc: '2.0', id, method, params }
  const headerChanges: Array<Extract<Mutation, { kind: 'header' }>> = []
  let raw: string | undefined
  for (const m of mutations) {
    if (m.kind === 'arg') args[m.key] = m.value
    else if (m.kind === 'param') params[m.key] = m.value
    else if (m.kind === 'meta') meta[m.key] = m.value
    else if (m.kind === 'header') headerChanges.push(m)
    else if (m.kind === 'raw') raw = m.text
    else message[m.kind] = m.value
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: '127.0.0.1:3000' }
  if (modern) {
    headers['mcp-protocol-version'] = MODERN
    headers['mcp-method'] = method
    const name = method === 'resources/read' ? params.uri : method.startsWith('tasks/') ? params.taskId : params.name
    if (headerSafe(name)) headers['mcp-name'] = name
    if (method === 'tools/call' && tool === 'route') {
      if (headerSafe(args.region)) headers['mcp-param-region'] = args.region
      if (typeof args.n === 'number' && Number.isSafeInteger(args.n)) headers['mcp-param-n'] = String(args.n)
    }
  } else if (legacyVersion !== undefined) {
    headers['mcp-protocol-version'] = legacyVersion
  }
  for (const { name, value } of headerChanges) {
    if (value === undefined) delete headers[name]
    else headers[name] = value
  }
  const body = raw ?? render(message)
  return { body, headers, ...readableId(body) }
})

/** The longest error text any answer may carry: a fixed text, quoted values of 64 characters, 10 problem lines. */
const MAX_ERROR_TEXT = 4096

/** What is wrong with one answer (empty when it is fine). */
export function answerProblems (request: HostileRequest, status: number, contentType: string | undefined, body: string): string[] {
  const problems: string[] = []
  if (status >= 500) problems.push(`HTTP ${status}`)
  if (status === 202) {
    if (body.length !== 0) problems.push('202 with a body')
    if (!request.mayAccept) problems.push('202 for a request')
    return problems
  }
  let text = body
  if (contentType?.startsWith('text/event-stream') === true) {
    const events = body.split('\n\n').filter((b) => b.startsWith('data: '))
    text = events.length === 0 ? '' : (events[events.length - 1] as string).slice(6)
  }
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    return [...problems, `not JSON: ${text.slice(0, 80)}`]
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return [...problems, 'not an object']
  if (json.jsonrpc !== '2.0') problems.push('jsonrpc is not "2.0"')
  const hasResult = Object.hasOwn(json, 'result')
  const hasError = Object.hasOwn(json, 'error')
  if (hasResult === hasError) problems.push('not exactly one of result and error')
  if (hasResult && (json.result === null || typeof json.result !== 'object' || Array.isArray(json.result))) problems.push('result is not an object')
  if (hasError && (!Number.isInteger(json.error?.code) || typeof json.error?.message !== 'string')) problems.push('malformed error object')
  const extra = Object.keys(json).filter((k) => !['jsonrpc', 'id', 'result', 'error'].includes(k))
  if (extra.length > 0) problems.push(`extra keys ${extra.join(',')}`)
  // Rejections before the body is read (403 guard, 413, 415) cannot know the id.
  const early = status === 403 || status === 413 || status === 415
  const expected = early ? undefined : request.expectedId
  if (expected === undefined ? Object.hasOwn(json, 'id') && !early : json.id !== expected) {
    problems.push(`id ${JSON.stringify(json.id)} where ${JSON.stringify(expected)} was due`)
  }
  if (early && Object.hasOwn(json, 'id')) problems.push('an id on a rejection that could not read one')
  if (hasError && /internal detail|getter exploded/.test(json.error.message)) problems.push('internal text leaked')
  // Error texts quote at most 64 characters of a client's value and list at most 10 problems (issue 22 item 8).
  const errorText: unknown = hasError ? json.error.message : json.result?.isError === true ? json.result.content?.[0]?.text : undefined
  if (typeof errorText === 'string' && errorText.length > MAX_ERROR_TEXT) problems.push(`an error text of ${errorText.length} characters`)
  if (text.includes(PATH_WALKED)) problems.push('a template value that walks a path reached the handler')
  return problems
}

export interface FuzzTally {
  sent: number
  bad: string[]
  /** Answers that were still open after `patienceMs` (listen streams, handlers waiting), checked after close. */
  late: number
  /** Streams the server dropped (a listen stream whose reader fell too far behind). */
  dropped: number
  statuses: Map<number, number>
}

/**
 * Sends each request by `inject` and checks its answer. Answers still open
 * after `patienceMs` (a listen stream stays open until the server closes, a
 * legacy question waits for its answer) are set aside and checked once
 * `close()` has ended them: they must be well-formed too.
 */
export function createFuzzRunner (app: { inject: (options: object) => Promise<{ statusCode: number, headers: Record<string, unknown>, body: string }> }, patienceMs = 25) {
  const tally: FuzzTally = { sent: 0, bad: [], late: 0, dropped: 0, statuses: new Map() }
  type Reply = { statusCode: number, headers: Record<string, unknown>, body: string } | 'dropped'
  const open: Array<{ request: HostileRequest, reply: Promise<Reply> }> = []
  function check (request: HostileRequest, reply: Reply): boolean {
    if (reply === 'dropped') {
      tally.dropped++
      return true
    }
    tally.statuses.set(reply.statusCode, (tally.statuses.get(reply.statusCode) ?? 0) + 1)
    const problems = answerProblems(request, reply.statusCode, reply.headers['content-type'] as string | undefined, reply.body)
    if (problems.length > 0) tally.bad.push(`${problems.join('; ')} <- ${request.body.slice(0, 160)} ${JSON.stringify(request.headers).slice(0, 240)}`)
    return problems.length === 0
  }
  return {
    tally,
    async send (request: HostileRequest): Promise<boolean> {
      tally.sent++
      // A stream the server drops (its reader fell behind) ends the inject with an error: counted, not a bad answer.
      const reply: Promise<Reply> = app.inject({ method: 'POST', url: '/mcp', headers: request.headers, payload: request.body })
        .catch((err: { code?: string }) => {
          if (err.code === 'LIGHT_ECONNRESET') return 'dropped' as const
          throw err
        })
      let timer: NodeJS.Timeout | undefined
      const settled = await Promise.race([reply, new Promise<undefined>((resolve) => { timer = setTimeout(() => resolve(undefined), patienceMs) })])
      clearTimeout(timer)
      if (settled === undefined) {
        tally.late++
        open.push({ request, reply })
        return true
      }
      return check(request, settled)
    },
    /** Call after the app's close() began: checks the answers that were still open. */
    async finish (): Promise<void> {
      for (const { request, reply } of open.splice(0)) check(request, await reply)
    }
  }
}
