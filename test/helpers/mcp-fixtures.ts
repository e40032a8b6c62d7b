/**
 * Server modules and app builders for the endpoint tests: one module with
 * every handler (spec-valid results), smaller ones, and a fresh Fastify
 * instance per test with the plugin registered and closed on teardown.
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import mcpCapabilities, { type McpCapabilitiesOptions, type ServerModule } from '../../lib/index.js'

export const SERVER_INFO = Object.freeze({ name: 'fixture-server', version: '1.2.3' })

/** serverInfo with every optional field: each legacy version gets only the ones it defines. */
export const FULL_SERVER_INFO = Object.freeze({
  name: 'fixture-server',
  version: '1.2.3',
  title: 'Fixture Server',
  description: 'A server for the endpoint tests',
  icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] }],
  websiteUrl: 'https://example.com/'
})

export const TOOL = Object.freeze({
  name: 'echo',
  description: 'Echoes its text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }
})
export const RESOURCE = Object.freeze({ uri: 'file:///notes/a.txt', name: 'a.txt', mimeType: 'text/plain' })
export const TEMPLATE = Object.freeze({ uriTemplate: 'file:///notes/{name}', name: 'note' })
export const PROMPT = Object.freeze({ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }] })

export function toolsResult () {
  return { tools: [structuredClone(TOOL)] }
}

export function callResult (text: string) {
  return { content: [{ type: 'text', text: `echo: ${text}` }] }
}

export function readResult (uri: string) {
  return { contents: [{ uri, mimeType: 'text/plain', text: `contents of ${uri}` }] }
}

export function promptResult (who: string) {
  return { messages: [{ role: 'user', content: { type: 'text', text: `Hello, ${who}` } }] }
}

export const COMPLETE_RESULT = Object.freeze({ completion: { values: ['alpha'], total: 1, hasMore: false } })

/** A module with every handler; `overrides` replaces or adds handlers. */
export function fullModule (overrides: Partial<Record<keyof ServerModule, unknown>> = {}): ServerModule {
  const module: Record<string, unknown> = {
    listTools: () => toolsResult(),
    callTool: (params: { name: string, arguments?: { text?: string } }) => callResult(String(params.arguments?.text ?? '')),
    listResources: () => ({ resources: [{ ...RESOURCE }] }),
    readResource: (params: { uri: string }) => readResult(params.uri),
    listResourceTemplates: () => ({ resourceTemplates: [{ ...TEMPLATE }] }),
    listPrompts: () => ({ prompts: [structuredClone(PROMPT)] }),
    getPrompt: (params: { name: string, arguments?: { who?: string } }) => promptResult(String(params.arguments?.who ?? 'world')),
    complete: () => structuredClone(COMPLETE_RESULT),
    subscribeResource: () => ({}),
    unsubscribeResource: () => ({}),
    setLogLevel: () => ({})
  }
  return Object.assign(module, overrides) as ServerModule
}

/** Only the tools handlers. */
export function toolsModule (overrides: Partial<Record<keyof ServerModule, unknown>> = {}): ServerModule {
  return Object.assign({
    listTools: () => toolsResult(),
    callTool: (params: { name: string }) => callResult(params.name)
  }, overrides) as ServerModule
}

export interface Teardown {
  teardown: (fn: () => unknown) => void
}

/** A fresh Fastify instance with the plugin registered (and ready), closed when the test ends. */
export async function buildApp (
  t: Teardown,
  options: Partial<McpCapabilitiesOptions> = {},
  fastifyOptions: FastifyServerOptions = {}
): Promise<FastifyInstance> {
  const app = Fastify(fastifyOptions)
  t.teardown(() => app.close())
  await app.register(mcpCapabilities, { server: fullModule(), serverInfo: SERVER_INFO, ...options })
  await app.ready()
  return app
}

/** Registers the plugin on a fresh app with `options` (as given, nothing added) and returns what registration threw, or undefined. */
export async function registrationError (options: unknown): Promise<(Error & { code?: string }) | undefined> {
  const app = Fastify()
  try {
    await app.register(mcpCapabilities, options as McpCapabilitiesOptions)
    await app.ready()
    return undefined
  } catch (err) {
    return err as Error & { code?: string }
  } finally {
    await app.close()
  }
}

export interface LogRecord {
  level: number
  msg?: string
  err?: { type?: string, message?: string, stack?: string }
  [key: string]: unknown
}

/** Fastify logger options writing JSON lines into `records`, to assert what the server logged. */
export function captureLogs (level = 'info'): { logger: { level: string, stream: { write: (line: string) => void } }, records: LogRecord[] } {
  const records: LogRecord[] = []
  return {
    records,
    logger: { level, stream: { write: (line: string) => { records.push(JSON.parse(line) as LogRecord) } } }
  }
}
