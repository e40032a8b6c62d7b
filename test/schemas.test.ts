/**
 * The wire schemas against the spec: every example and built value is
 * accepted by our schema (ajv and TypeBox `Value.Check`) and by the spec's
 * `$defs` entry; every mutated value is rejected by ours (and, unless marked
 * as a place where we are stricter, by the spec too). Then the response
 * schemas go through Fastify's serializer without losing a field.
 */
import t from 'tap'
import { isDeepStrictEqual } from 'node:util'
import Fastify from 'fastify'
import fastJson from 'fast-json-stringify'
import { type TSchema, Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import * as S from '../lib/protocol/schemas.js'
import { type SpecVersion, ourValidator, specExamples, specValidator } from './helpers/spec-schema.js'

const DROP = Symbol('drop')

/** A deep copy of `value` with `path` set to `next` (or removed for DROP). */
function mutate (value: unknown, path: string, next: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>
  const keys = path.split('.')
  const last = keys.pop() as string
  let node: Record<string, unknown> = copy
  for (const key of keys) node = node[key] as Record<string, unknown>
  if (next === DROP) delete node[last]
  else node[last] = next
  return copy
}

interface Mutation {
  path: string
  value: unknown
  /** false where our schema is deliberately stricter than the spec's. */
  specRejects?: boolean
}

interface Case {
  name: string
  schema: TSchema
  spec: [SpecVersion, string]
  valid: Array<[string, unknown]>
  /** Mutations applied to the first valid value. */
  mutations: Mutation[]
  /** Whole invalid values, for shapes a path mutation cannot express. */
  invalid?: Array<[string, unknown]>
}

function examplesOf (suffix: string, filter: (v: unknown) => boolean = () => true): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = []
  for (const type of EXAMPLE_TYPES.filter((n) => n.endsWith(suffix))) {
    for (const [file, value] of specExamples(type)) if (filter(value)) out.push([`${type}/${file}`, value])
  }
  return out
}

const EXAMPLE_TYPES = [
  'CallToolRequest', 'CompleteRequest', 'DiscoverRequest', 'GetPromptRequest', 'ListPromptsRequest',
  'ListResourceTemplatesRequest', 'ListResourcesRequest', 'ListToolsRequest', 'ReadResourceRequest',
  'SubscriptionsListenRequest', 'CreateMessageRequest', 'ElicitRequest', 'ListRootsRequest',
  'CancelledNotification', 'LoggingMessageNotification', 'ProgressNotification', 'PromptListChangedNotification',
  'ResourceListChangedNotification', 'ResourceUpdatedNotification', 'SubscriptionsAcknowledgedNotification',
  'ToolListChangedNotification',
  'CallToolResultResponse', 'CompleteResultResponse', 'DiscoverResultResponse', 'GetPromptResultResponse',
  'ListPromptsResultResponse', 'ListResourceTemplatesResultResponse', 'ListResourcesResultResponse',
  'ListToolsResultResponse', 'ReadResourceResultResponse', 'SubscriptionsListenResultResponse'
]
const isEnvelope = (v: unknown): boolean => typeof v === 'object' && v !== null && 'jsonrpc' in v

// ---------------------------------------------------------------------------
// Built values

const serverInfo = {
  name: 'example-server',
  version: '1.2.3',
  title: 'Example Server',
  description: 'Serves examples',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'light' }],
  websiteUrl: 'https://example.com'
}

const discoverFull = {
  resultType: 'complete',
  supportedVersions: ['2026-07-28'],
  capabilities: {
    tools: { listChanged: true },
    resources: { listChanged: true, subscribe: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
    experimental: { 'com.example/thing': { level: 2 } },
    extensions: { 'io.modelcontextprotocol/tasks': {} }
  },
  instructions: 'Use the tools.',
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo, 'com.example/trace': 'abc' }
}
const discoverMinimal = { resultType: 'complete', supportedVersions: [], capabilities: {}, ttlMs: 0, cacheScope: 'public' }

const initializeResult = {
  protocolVersion: '2025-11-25',
  capabilities: {
    tools: { listChanged: false },
    resources: { listChanged: false, subscribe: true },
    prompts: { listChanged: false },
    completions: {},
    logging: {},
    experimental: { 'com.example/thing': {} }
  },
  serverInfo,
  instructions: 'Use the tools.'
}
const initializeResultMinimal = { protocolVersion: '2024-11-05', capabilities: {}, serverInfo: { name: 's', version: '0' } }

const initializeRequest = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } },
    clientInfo: { name: 'client', version: '1.0.0' }
  }
}

const unsupported = (id?: string | number) => ({
  jsonrpc: '2.0',
  ...(id === undefined ? {} : { id }),
  error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2025-11-25' } }
})

const [discoverRequest] = specExamples('DiscoverRequest').map(([, v]) => v) as [Record<string, any>]

// ---------------------------------------------------------------------------

const cases: Case[] = [
  {
    name: 'Implementation (2026-07-28)',
    schema: S.Implementation,
    spec: ['2026-07-28', 'Implementation'],
    valid: [['full', serverInfo], ['minimal', { name: 'n', version: 'v' }], ['extra field', { name: 'n', version: 'v', vendor: 'x' }]],
    mutations: [
      { path: 'name', value: DROP },
      { path: 'version', value: DROP },
      { path: 'version', value: 1 },
      { path: 'title', value: null },
      { path: 'icons', value: [{ mimeType: 'image/png' }] },
      { path: 'icons', value: [{ src: 'https://example.com/i.png', theme: 'blue' }] },
      { path: 'icons', value: 'https://example.com/i.png' }
    ]
  },
  {
    name: 'Implementation (2025-11-25)',
    schema: S.Implementation,
    spec: ['2025-11-25', 'Implementation'],
    valid: [['full', serverInfo], ['minimal', { name: 'n', version: 'v' }]],
    mutations: [{ path: 'name', value: DROP }, { path: 'description', value: 5 }]
  },
  {
    name: 'JsonRpcRequest',
    schema: S.JsonRpcRequest,
    spec: ['2026-07-28', 'JSONRPCRequest'],
    valid: [...examplesOf('Request', isEnvelope), ['string id, no params', { jsonrpc: '2.0', id: 'a', method: 'ping' }]],
    mutations: [
      { path: 'id', value: null },
      { path: 'id', value: DROP },
      { path: 'id', value: { n: 1 } },
      { path: 'jsonrpc', value: '1.0' },
      { path: 'jsonrpc', value: DROP },
      { path: 'method', value: 5 },
      { path: 'method', value: DROP },
      { path: 'params', value: [] },
      { path: 'params', value: 'x' }
    ]
  },
  {
    name: 'JsonRpcNotification',
    schema: S.JsonRpcNotification,
    spec: ['2026-07-28', 'JSONRPCNotification'],
    valid: examplesOf('Notification', isEnvelope),
    mutations: [
      { path: 'jsonrpc', value: 2 },
      { path: 'method', value: DROP },
      { path: 'params', value: [1] }
    ]
  },
  {
    name: 'JsonRpcResultResponse',
    schema: S.JsonRpcResultResponse,
    spec: ['2026-07-28', 'JSONRPCResultResponse'],
    valid: examplesOf('ResultResponse'),
    mutations: [
      { path: 'result', value: DROP },
      { path: 'result', value: 'ok' },
      { path: 'id', value: DROP },
      { path: 'id', value: null },
      { path: 'jsonrpc', value: '1.0' }
    ]
  },
  {
    name: 'JsonRpcErrorResponse',
    schema: S.JsonRpcErrorResponse,
    spec: ['2026-07-28', 'JSONRPCErrorResponse'],
    valid: [
      ...specExamples('HeaderMismatchError'),
      ...specExamples('UnsupportedProtocolVersionError'),
      ...specExamples('MissingRequiredClientCapabilityError'),
      ...['ParseError', 'InvalidParamsError', 'MethodNotFoundError', 'InternalError'].flatMap((type) =>
        specExamples(type).map(([f, error]): [string, unknown] => [`${type}/${f}`, { jsonrpc: '2.0', id: 'r1', error }])),
      ['no id (parse error)', { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }]
    ],
    mutations: [
      { path: 'error', value: DROP },
      { path: 'error.code', value: DROP },
      { path: 'error.code', value: '-32020' },
      { path: 'error.code', value: -32020.5 },
      { path: 'error.message', value: DROP },
      { path: 'id', value: null },
      { path: 'jsonrpc', value: DROP }
    ]
  },
  {
    name: 'JsonRpcError',
    schema: S.JsonRpcError,
    spec: ['2026-07-28', 'Error'],
    valid: ['ParseError', 'InvalidParamsError', 'MethodNotFoundError', 'InternalError'].flatMap((type) =>
      specExamples(type).map(([f, v]): [string, unknown] => [`${type}/${f}`, v])),
    mutations: [{ path: 'code', value: DROP }, { path: 'message', value: 1 }]
  },
  {
    name: 'LegacyServerCapabilities',
    schema: S.LegacyServerCapabilities,
    spec: ['2025-11-25', 'ServerCapabilities'],
    valid: [['full', initializeResult.capabilities], ['empty', {}], ['subscribe only', { resources: { subscribe: true } }]],
    mutations: [
      { path: 'tools', value: true },
      { path: 'tools.listChanged', value: 'false' },
      { path: 'resources.subscribe', value: 1 },
      { path: 'prompts', value: [] },
      { path: 'completions', value: [] },
      { path: 'logging', value: 'on' },
      { path: 'experimental', value: { x: 1 } }
    ]
  },
  {
    name: 'ModernServerCapabilities',
    schema: S.ModernServerCapabilities,
    spec: ['2026-07-28', 'ServerCapabilities'],
    valid: [...specExamples('ServerCapabilities'), ['full', discoverFull.capabilities]],
    mutations: [] // the examples are small: mutate the full one below
  },
  {
    name: 'ModernServerCapabilities (full)',
    schema: S.ModernServerCapabilities,
    spec: ['2026-07-28', 'ServerCapabilities'],
    valid: [['full', discoverFull.capabilities]],
    mutations: [
      { path: 'extensions', value: { 'io.modelcontextprotocol/tasks': true } },
      { path: 'extensions', value: [] },
      { path: 'resources.listChanged', value: 'true' },
      { path: 'logging', value: null },
      { path: 'completions', value: 1 }
    ]
  },
  {
    name: 'ClientCapabilities',
    schema: S.ClientCapabilities,
    spec: ['2026-07-28', 'ClientCapabilities'],
    valid: specExamples('ClientCapabilities'),
    mutations: [],
    invalid: [
      ['elicitation not an object', { elicitation: 'yes' }],
      ['sampling.tools not an object', { sampling: { tools: true } }],
      ['extensions value not an object', { extensions: { 'io.example/x': 1 } }]
    ]
  },
  {
    name: 'ClientCapabilities (2025-11-25)',
    schema: S.ClientCapabilities,
    spec: ['2025-11-25', 'ClientCapabilities'],
    valid: [['built', initializeRequest.params.capabilities], ['empty', {}]],
    mutations: [
      { path: 'roots.listChanged', value: 'yes' },
      { path: 'sampling', value: 1 },
      { path: 'elicitation.form', value: [] }
    ]
  },
  {
    name: 'InitializeRequest',
    schema: S.InitializeRequest,
    spec: ['2025-11-25', 'InitializeRequest'],
    valid: [['built', initializeRequest]],
    mutations: [
      { path: 'method', value: 'initialise' },
      { path: 'params', value: DROP },
      { path: 'params.clientInfo', value: DROP },
      { path: 'params.clientInfo.name', value: DROP },
      { path: 'params.capabilities', value: DROP },
      { path: 'params.protocolVersion', value: 20251125 },
      { path: 'id', value: null }
    ]
  },
  {
    name: 'InitializeResult',
    schema: S.InitializeResult,
    spec: ['2025-11-25', 'InitializeResult'],
    valid: [['full', initializeResult], ['minimal', initializeResultMinimal]],
    mutations: [
      { path: 'protocolVersion', value: DROP },
      { path: 'capabilities', value: DROP },
      { path: 'serverInfo', value: DROP },
      { path: 'serverInfo.version', value: DROP },
      { path: 'capabilities.resources.subscribe', value: 'yes' },
      { path: 'instructions', value: 5 }
    ]
  },
  {
    name: 'InitializeResponse',
    schema: S.InitializeResponse,
    spec: ['2025-11-25', 'JSONRPCResultResponse'],
    valid: [['built', { jsonrpc: '2.0', id: 1, result: initializeResult }]],
    mutations: [
      { path: 'result', value: DROP },
      { path: 'id', value: DROP },
      // the spec's generic envelope does not look inside the result
      { path: 'result.serverInfo', value: DROP, specRejects: false },
      { path: 'result.protocolVersion', value: 1, specRejects: false }
    ]
  },
  {
    name: 'ModernRequestMeta',
    schema: S.ModernRequestMeta,
    spec: ['2026-07-28', 'RequestMetaObject'],
    valid: [
      ['DiscoverRequest example', discoverRequest.params._meta],
      ['with logLevel', { ...discoverRequest.params._meta, 'io.modelcontextprotocol/logLevel': 'warning' }]
    ],
    mutations: [
      { path: 'io.modelcontextprotocol/protocolVersion', value: DROP },
      { path: 'io.modelcontextprotocol/clientCapabilities', value: DROP },
      { path: 'io.modelcontextprotocol/clientInfo', value: { name: 'x' } }
    ],
    invalid: [
      ['logLevel unknown', { ...discoverRequest.params._meta, 'io.modelcontextprotocol/logLevel': 'loud' }],
      ['protocolVersion a number', { ...discoverRequest.params._meta, 'io.modelcontextprotocol/protocolVersion': 20260728 }]
    ]
  },
  {
    name: 'DiscoverRequest',
    schema: S.DiscoverRequest,
    spec: ['2026-07-28', 'DiscoverRequest'],
    valid: specExamples('DiscoverRequest'),
    mutations: [
      { path: 'method', value: 'server/discovery' },
      { path: 'params', value: DROP },
      { path: 'params._meta', value: DROP },
      { path: 'id', value: DROP }
    ]
  },
  {
    name: 'DiscoverResult',
    schema: S.DiscoverResult,
    spec: ['2026-07-28', 'DiscoverResult'],
    valid: [...specExamples('DiscoverResult'), ['full', discoverFull], ['minimal', discoverMinimal]],
    mutations: [
      { path: 'ttlMs', value: '3600000' },
      { path: 'ttlMs', value: -1 },
      { path: 'ttlMs', value: 1.5 },
      { path: 'ttlMs', value: null },
      { path: 'ttlMs', value: DROP },
      { path: 'cacheScope', value: 'shared' },
      { path: 'cacheScope', value: 'PUBLIC' },
      { path: 'cacheScope', value: DROP },
      { path: 'resultType', value: DROP },
      // any string passes the spec; a discover result is never input_required
      { path: 'resultType', value: 'input_required', specRejects: false },
      { path: 'supportedVersions', value: DROP },
      { path: 'supportedVersions', value: '2026-07-28' },
      { path: 'supportedVersions', value: [20260728] },
      { path: 'capabilities', value: DROP },
      { path: 'capabilities', value: [] },
      { path: 'capabilities.tools', value: 'yes' },
      { path: 'instructions', value: 42 },
      { path: '_meta', value: 'meta' },
      { path: '_meta.io.modelcontextprotocol/serverInfo', value: null }
    ]
  },
  {
    name: 'DiscoverResponse',
    schema: S.DiscoverResponse,
    spec: ['2026-07-28', 'DiscoverResultResponse'],
    valid: [...specExamples('DiscoverResultResponse'), ['built', { jsonrpc: '2.0', id: 7, result: discoverFull }]],
    mutations: [
      { path: 'jsonrpc', value: '1.0' },
      { path: 'id', value: null },
      { path: 'id', value: DROP },
      { path: 'result', value: DROP },
      { path: 'result.ttlMs', value: -5 },
      { path: 'result.cacheScope', value: 'everyone' },
      { path: 'result.supportedVersions', value: DROP }
    ]
  },
  {
    name: 'HeaderMismatchError',
    schema: S.HeaderMismatchError,
    spec: ['2026-07-28', 'HeaderMismatchError'],
    valid: [
      ...specExamples('HeaderMismatchError'),
      ['string id, data', { jsonrpc: '2.0', id: 'x', error: { code: -32020, message: 'Mcp-Method header missing', data: { header: 'Mcp-Method' } } }]
    ],
    mutations: [
      { path: 'error.code', value: -32021 },
      { path: 'error.code', value: -32600 },
      { path: 'error.code', value: DROP },
      { path: 'error.message', value: DROP },
      { path: 'error', value: DROP },
      { path: 'jsonrpc', value: DROP },
      { path: 'id', value: null }
    ]
  },
  {
    name: 'MissingRequiredClientCapabilityError',
    schema: S.MissingRequiredClientCapabilityError,
    spec: ['2026-07-28', 'MissingRequiredClientCapabilityError'],
    valid: specExamples('MissingRequiredClientCapabilityError'),
    mutations: [
      { path: 'error.code', value: -32022 },
      { path: 'error.data', value: DROP },
      { path: 'error.data.requiredCapabilities', value: DROP },
      { path: 'error.data.requiredCapabilities', value: 'elicitation' },
      { path: 'error.data.requiredCapabilities.elicitation', value: true },
      { path: 'error.message', value: null }
    ]
  },
  {
    name: 'UnsupportedProtocolVersionError',
    schema: S.UnsupportedProtocolVersionError,
    spec: ['2026-07-28', 'UnsupportedProtocolVersionError'],
    valid: [...specExamples('UnsupportedProtocolVersionError'), ['built, no id', unsupported()], ['built, string id', unsupported('a')]],
    mutations: [
      { path: 'error.code', value: -32020 },
      { path: 'error.data', value: DROP },
      { path: 'error.data.supported', value: DROP },
      { path: 'error.data.supported', value: '2026-07-28' },
      { path: 'error.data.supported', value: [2026] },
      { path: 'error.data.requested', value: DROP },
      { path: 'error.data.requested', value: 20251125 }
    ]
  }
]

// Mutations are written as dotted paths; a key with dots in it (a `_meta`
// key) is addressed by its full remaining path, so resolve those by hand.
function applyMutation (value: unknown, m: Mutation): unknown {
  const metaKey = '_meta.io.modelcontextprotocol/'
  if (m.path.startsWith(metaKey)) {
    const copy = structuredClone(value) as Record<string, Record<string, unknown>>
    const key = m.path.slice('_meta.'.length)
    if (m.value === DROP) delete copy._meta?.[key]
    else (copy._meta as Record<string, unknown>)[key] = m.value
    return copy
  }
  if (m.path.startsWith('io.modelcontextprotocol/')) {
    const copy = structuredClone(value) as Record<string, unknown>
    if (m.value === DROP) delete copy[m.path]
    else copy[m.path] = m.value
    return copy
  }
  return mutate(value, m.path, m.value)
}

const show = (v: unknown): string => v === DROP ? '(removed)' : JSON.stringify(v)

for (const c of cases) {
  t.test(c.name, async (t) => {
    const ours = ourValidator(c.schema)
    const spec = specValidator(...c.spec)
    t.ok(c.valid.length > 0, 'has valid values to check')
    for (const [label, value] of c.valid) {
      t.ok(ours(value), `ours accepts ${label}`, { errors: ours.errors })
      t.ok(Value.Check(c.schema, value), `Value.Check accepts ${label}`)
      t.ok(spec(value), `spec ${c.spec[1]} accepts ${label}`, { errors: spec.errors })
    }
    const invalid: Array<[string, unknown, boolean]> = (c.invalid ?? []).map(([l, v]) => [l, v, true])
    const [, first] = c.valid[0] as [string, unknown]
    for (const m of c.mutations) invalid.push([`${m.path} = ${show(m.value)}`, applyMutation(first, m), m.specRejects ?? true])
    for (const [label, value, specRejects] of invalid) {
      t.notOk(ours(value), `ours rejects ${label}`)
      t.notOk(Value.Check(c.schema, value), `Value.Check rejects ${label}`)
      if (specRejects) t.notOk(spec(value), `spec rejects ${label} too`)
      else t.ok(spec(value), `spec accepts ${label}: ours is stricter here`)
    }
  })
}

t.test('mutation helper changes the value it copies, never the original', async (t) => {
  const original = { a: { b: 1 } }
  t.same(mutate(original, 'a.b', 2), { a: { b: 2 } })
  t.same(mutate(original, 'a.b', DROP), { a: {} })
  t.same(original, { a: { b: 1 } })
})

t.test('where ours is looser than the spec, on purpose', async (t) => {
  const spec = specValidator('2026-07-28', 'Implementation')
  const relative = { name: 'n', version: 'v', websiteUrl: 'not a uri' }
  t.ok(Value.Check(S.Implementation, relative), 'websiteUrl is display-only: no uri format check')
  t.notOk(spec(relative), 'the spec checks the uri format')
  const fractional = { jsonrpc: '2.0', id: 1.5, method: 'tools/list' }
  t.ok(Value.Check(S.JsonRpcRequest, fractional), 'a fractional id is still a JSON-RPC id, echoed as is')
  t.notOk(specValidator('2026-07-28', 'JSONRPCRequest')(fractional), 'MCP ids are integers')
})

// ---------------------------------------------------------------------------
// Fastify's response serializer (fast-json-stringify) keeps every field

const extras = {
  result: { extraResultField: { nested: [1, 'two', null, true] } },
  capabilities: {
    tools: { listChanged: true, futureFlag: 'x' },
    'com.example/custom': { on: true }
  }
}

const serializerCases: Array<[string, TSchema, number, unknown]> = [
  ['InitializeResponse', S.InitializeResponse, 200, {
    jsonrpc: '2.0',
    id: 'init-1',
    result: {
      ...initializeResult,
      capabilities: { ...initializeResult.capabilities, ...extras.capabilities },
      _meta: { 'com.example/x': 1 },
      ...extras.result
    }
  }],
  ['InitializeResponse (numeric id, minimal)', S.InitializeResponse, 200, { jsonrpc: '2.0', id: 0, result: initializeResultMinimal }],
  ['DiscoverResponse', S.DiscoverResponse, 200, {
    jsonrpc: '2.0',
    id: 42,
    result: {
      ...discoverFull,
      capabilities: { ...discoverFull.capabilities, ...extras.capabilities },
      ttlMs: 3_600_000,
      cacheScope: 'public',
      ...extras.result
    }
  }],
  ['DiscoverResponse (minimal)', S.DiscoverResponse, 200, { jsonrpc: '2.0', id: 'd', result: discoverMinimal }],
  ['ErrorResponse (no id)', S.ErrorResponse, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }],
  ['ErrorResponse (data of any JSON type)', S.ErrorResponse, 400, { jsonrpc: '2.0', id: 3, error: { code: -32602, message: 'bad', data: [{ a: 1 }, 'b', null] } }],
  ['ErrorResponse (null data)', S.ErrorResponse, 400, { jsonrpc: '2.0', id: 3, error: { code: -32603, message: 'Internal error', data: null } }],
  ['UnsupportedProtocolVersionError', S.UnsupportedProtocolVersionError, 400, unsupported(9)],
  ['ErrorResponse with a -32022 body', S.ErrorResponse, 400, unsupported('x')],
  ['HeaderMismatchError', S.HeaderMismatchError, 400, {
    jsonrpc: '2.0', id: 1, error: { code: -32020, message: 'Header mismatch', data: { header: 'Mcp-Name' } }
  }],
  ['MissingRequiredClientCapabilityError', S.MissingRequiredClientCapabilityError, 400, {
    jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'needs elicitation', data: { requiredCapabilities: { elicitation: { form: {} }, 'com.example/x': {} } } }
  }]
]

t.test('Fastify response serializer keeps every field', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  serializerCases.forEach(([, schema, status, body], i) => {
    app.post(`/r${i}`, { schema: { response: { [status]: schema } } }, async (_req, reply) => reply.code(status).send(body))
  })
  await app.ready()
  for (const [i, [label, schema, status, body]] of serializerCases.entries()) {
    t.ok(Value.Check(schema, body), `${label}: the sent value fits its schema`)
    const res = await app.inject({ method: 'POST', url: `/r${i}` })
    t.equal(res.statusCode, status, `${label}: status`)
    t.same(JSON.parse(res.body), body, `${label}: body round-trips unchanged`)
  }
})

t.test('fast-json-stringify on its own keeps every field', async (t) => {
  for (const [label, schema, , body] of serializerCases) {
    const stringify = fastJson(schema)
    t.same(JSON.parse(stringify(body)), body, label)
  }
})

t.test('ModernCallToolResult, written out, is the schema Type.Composite builds from CallToolResult', async (t) => {
  const composed = Type.Composite([Type.Omit(S.CallToolResult, ['structuredContent']), Type.Object({ structuredContent: Type.Optional(Type.Unknown()) })], { additionalProperties: true })
  // symbols included (TypeBox's Kind and OptionalKind), so TypeCompiler and Value treat both alike
  t.ok(isDeepStrictEqual(S.ModernCallToolResult, composed), 'deeply equal, symbol keys included')
  t.same(Object.keys(S.ModernCallToolResult.properties), Object.keys(composed.properties), 'same property order (the serializer writes them in it)')
  t.ok(Value.Check(S.ModernCallToolResult, { content: [], structuredContent: [1, 2] }), 'structuredContent may be any JSON value')
  t.notOk(Value.Check(S.ModernCallToolResult, { structuredContent: {} }), 'content is still required')
})
