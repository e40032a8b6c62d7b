/**
 * The timed requests: exact headers and body bytes, the answer each must get,
 * and which servers take part. Shared by the runner and the profiler.
 */
import { callTool, SERVER_INFO, TOOLS } from './catalog.js'

export type ServerName = 'plugin' | 'bare' | 'bare-tool' | 'official' | 'defined' | 'official-zod' | 'tmcp'
export type ScenarioName = 'discover' | 'initialize' | 'tools/list' | 'rejected' | 'tools/call' | 'legacy tools/call' | 'call/list 9:1'

export const MODERN_VERSION = '2026-07-28'
export const LEGACY_VERSION = '2025-11-25'

export interface SchemaRef {
  /** Folder under mcp-spec/ */
  version: typeof MODERN_VERSION | typeof LEGACY_VERSION
  /** `$defs` entry the whole JSON-RPC message must match. */
  message: string
  /** `$defs` entry `result` must match, when the message schema does not cover it. */
  result?: string
}

export interface Scenario {
  name: ScenarioName
  what: string
  headers: Record<string, string>
  body: string
  status: number
  schema: SchemaRef
  /** Semantic checks the schemas cannot express; returns the problems found. */
  check: (message: Record<string, any>) => string[]
  servers: readonly ServerName[]
  /**
   * A mix: every connection sends the requests of these scenarios in turn,
   * `count` of each (headers, body, status and checks above are the first
   * part's). Each answer must repeat the bytes checked for its part.
   */
  mix?: ReadonlyArray<{ readonly part: ScenarioName, readonly count: number }>
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' }
}

function modernHeaders (method: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN_VERSION,
    'mcp-method': method
  }
}

/**
 * What the bare server (servers/bare.ts) finds an answer by: the method and
 * the era (a modern request carries `_meta`), as both eras call tools.
 */
export function cannedKey (body: { method?: unknown, params?: { _meta?: unknown } } | null): string | undefined {
  if (typeof body?.method !== 'string') return undefined
  return `${body.method} ${body.params?._meta === undefined ? 'legacy' : 'modern'}`
}

function request (method: string, params: object): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
}

function expect (problems: string[], ok: boolean, what: string): void {
  if (!ok) problems.push(what)
}

function checkServerInfo (problems: string[], info: any): void {
  expect(problems, info?.name === SERVER_INFO.name && info?.version === SERVER_INFO.version, `serverInfo is ${JSON.stringify(info)}`)
}

const discoverBody = request('server/discover', { _meta: MODERN_META })

/** Every argument given, so the defined tool's defaults change nothing and both modules answer the same bytes. */
const CALL_ARGUMENTS = { query: 'crash on start', state: 'open', limit: 20 }

// Order is timing order within a round: rejected right after discover, which it is compared with.
const PLAIN_SCENARIOS: readonly Scenario[] = [
  {
    name: 'discover',
    what: 'modern server/discover (2026-07-28)',
    headers: modernHeaders('server/discover'),
    body: discoverBody,
    status: 200,
    schema: { version: MODERN_VERSION, message: 'DiscoverResultResponse' },
    check (m) {
      const problems: string[] = []
      expect(problems, m.id === 1, 'id is not 1')
      expect(problems, Array.isArray(m.result?.supportedVersions) && m.result.supportedVersions.includes(MODERN_VERSION), 'supportedVersions lacks 2026-07-28')
      expect(problems, m.result?.capabilities?.tools !== undefined, 'capabilities.tools missing')
      expect(problems, m.result?.resultType === 'complete', 'resultType is not "complete"')
      checkServerInfo(problems, m.result?._meta?.['io.modelcontextprotocol/serverInfo'])
      return problems
    },
    servers: ['plugin', 'bare', 'official']
  },
  {
    name: 'rejected',
    what: 'discover body with a mismatching Mcp-Method header (400, -32020)',
    headers: modernHeaders('tools/list'),
    body: discoverBody,
    status: 400,
    schema: { version: MODERN_VERSION, message: 'HeaderMismatchError' },
    check (m) {
      const problems: string[] = []
      expect(problems, m.id === 1, 'id is not echoed')
      expect(problems, m.error?.code === -32020, `error code is ${m.error?.code}`)
      return problems
    },
    servers: ['plugin', 'official']
  },
  {
    name: 'initialize',
    what: 'legacy initialize (2025-11-25)',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: request('initialize', { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } }),
    status: 200,
    schema: { version: LEGACY_VERSION, message: 'JSONRPCResultResponse', result: 'InitializeResult' },
    check (m) {
      const problems: string[] = []
      expect(problems, m.id === 1, 'id is not 1')
      expect(problems, m.result?.protocolVersion === LEGACY_VERSION, `protocolVersion is ${m.result?.protocolVersion}`)
      expect(problems, m.result?.capabilities?.tools !== undefined, 'capabilities.tools missing')
      checkServerInfo(problems, m.result?.serverInfo)
      return problems
    },
    servers: ['plugin', 'bare', 'official']
  },
  {
    name: 'tools/list',
    what: 'modern tools/list (2026-07-28), 4 tools',
    headers: modernHeaders('tools/list'),
    body: request('tools/list', { _meta: MODERN_META }),
    status: 200,
    schema: { version: MODERN_VERSION, message: 'ListToolsResultResponse' },
    check (m) {
      const problems: string[] = []
      expect(problems, m.id === 1, 'id is not 1')
      const tools: any[] = Array.isArray(m.result?.tools) ? m.result.tools : []
      expect(problems, JSON.stringify(tools.map((t) => t.name)) === JSON.stringify(TOOLS.map((t) => t.name)), 'tool names differ from the catalogue')
      for (const tool of TOOLS) {
        const got = tools.find((t) => t.name === tool.name)
        expect(problems, JSON.stringify(got?.inputSchema) === JSON.stringify(tool.inputSchema), `${tool.name}: inputSchema differs from the catalogue`)
      }
      expect(problems, typeof m.result?.ttlMs === 'number' && typeof m.result?.cacheScope === 'string', 'cache hints missing')
      checkServerInfo(problems, m.result?._meta?.['io.modelcontextprotocol/serverInfo'])
      return problems
    },
    servers: ['plugin', 'bare', 'official']
  },
  {
    name: 'tools/call',
    what: 'modern tools/call (2026-07-28) of search_issues with three arguments',
    headers: { ...modernHeaders('tools/call'), 'mcp-name': 'search_issues' },
    body: request('tools/call', { name: 'search_issues', arguments: CALL_ARGUMENTS, _meta: MODERN_META }),
    status: 200,
    schema: { version: MODERN_VERSION, message: 'CallToolResultResponse' },
    check (m) {
      const problems: string[] = []
      expect(problems, m.id === 1, 'id is not 1')
      expect(problems, m.result?.isError !== true, 'the call failed')
      expect(problems, m.result?.content?.[0]?.text === callTool('search_issues', CALL_ARGUMENTS).content[0]?.text, `content is ${JSON.stringify(m.result?.content)}`)
      expect(problems, m.result?.resultType === 'complete', 'resultType is not "complete"')
      return problems
    },
    // plugin: the tool as a raw handler; defined: the same tool from defineTools, arguments validated;
    // bare-tool: the floor that checks the arguments, runs the tool and serialises its result by hand;
    // official validates with the SDK's JSON Schema validator, official-zod and tmcp with zod schemas
    servers: ['plugin', 'defined', 'bare', 'bare-tool', 'official', 'official-zod', 'tmcp']
  },
  {
    name: 'legacy tools/call',
    what: 'legacy tools/call (2025-11-25, no session) of search_issues with three arguments',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': LEGACY_VERSION },
    body: request('tools/call', { name: 'search_issues', arguments: CALL_ARGUMENTS }),
    status: 200,
    schema: { version: LEGACY_VERSION, message: 'JSONRPCResultResponse', result: 'CallToolResult' },
    check (m) {
      const problems: string[] = []
      expect(problems, m.id === 1, 'id is not 1')
      expect(problems, m.result?.isError !== true, 'the call failed')
      expect(problems, m.result?.content?.[0]?.text === callTool('search_issues', CALL_ARGUMENTS).content[0]?.text, `content is ${JSON.stringify(m.result?.content)}`)
      return problems
    },
    servers: ['plugin', 'defined', 'bare', 'bare-tool', 'official', 'official-zod', 'tmcp']
  }
]

function partNamed (name: ScenarioName | undefined): Scenario {
  const part = PLAIN_SCENARIOS.find((scenario) => scenario.name === name)
  if (part === undefined) throw new Error(`mix part "${name}" is not a plain scenario`)
  return part
}

function mixOf (name: ScenarioName, what: string, mix: NonNullable<Scenario['mix']>, servers: readonly ServerName[]): Scenario {
  return { ...partNamed(mix[0]?.part), name, what, mix, servers }
}

export const SCENARIOS: readonly Scenario[] = [
  ...PLAIN_SCENARIOS,
  // what a client mostly does once connected (issue 35): call tools, now and then list them again
  mixOf('call/list 9:1', 'modern tools/call and tools/list (2026-07-28), nine calls to one list on every connection',
    [{ part: 'tools/call', count: 9 }, { part: 'tools/list', count: 1 }], ['plugin', 'bare'])
]

/** The plain scenarios whose requests a scenario sends: itself, or a mix's parts. */
export function partsOf (scenario: Scenario): Scenario[] {
  return scenario.mix === undefined ? [scenario] : scenario.mix.map(({ part }) => partNamed(part))
}

/** The requests one connection sends in turn, each with the plain scenario it belongs to. */
export function requestSequence (scenario: Scenario): Scenario[] {
  return scenario.mix === undefined ? [scenario] : scenario.mix.flatMap(({ part, count }) => Array.from({ length: count }, () => partNamed(part)))
}
