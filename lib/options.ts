/**
 * Registration options: their types, defaults and the checks that run at
 * `register` time. A bad option fails registration with a coded error, never
 * a request later.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { FST_MCP_INVALID_ERA, FST_MCP_INVALID_OPTION, FST_MCP_INVALID_SERVER, FST_MCP_REQUEST_STATE_SECRET_REQUIRED } from './errors.js'
import { type AnswerRouter, MemoryAnswerRouter } from './parts/answer-router.js'
import { type EventBus, MemoryEventBus } from './parts/event-bus.js'
import type { CacheScope, Icon, Implementation } from './protocol/schemas.js'
import type { AnyServerModule } from './server-module/contract.js'
import type { TaskLimits, TaskStoreFactory } from './parts/task-store.js'
import { type AuthorizationOptions, resolveAuthorization, type ResolvedAuthorization } from './auth/authorization-options.js'
import { isJsonObject } from './protocol/jsonrpc.js'
import { MAX_TIMER_MS } from './common/timers.js'
import { DEFAULT_TOOL_ERROR_MODE, TOOL_ERROR_MODES, type ToolErrorMode } from './handler/tool-errors.js'
import { checkRoutesOption, type RoutesOptions } from './routes/route-tools.js'
import type { RouteCallSettings } from './routes/route-call.js'

export const DEFAULT_PATH = '/mcp'
export const DEFAULT_ERA = 'dual'
export const DEFAULT_TTL_MS = 0
export const DEFAULT_CACHE_SCOPE = 'private'
export const DEFAULT_BODY_LIMIT = 1024 * 1024
export const DEFAULT_KEEP_ALIVE_MS = 15_000
export const DEFAULT_CLIENT_REQUEST_TIMEOUT_MS = 60_000
export const DEFAULT_REQUEST_STATE_TTL_MS = 15 * 60_000
export const DEFAULT_TASK_TTL_MS = 60 * 60_000
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1000
export const MAX_LIST_PAGE_SIZE = 10_000
export const DEFAULT_MAX_TASKS = 1000
/**
 * What a task may keep of its request (its arguments, client capabilities and
 * info), in estimated heap bytes. A task lives up to `ttlMs` after its request
 * is gone, so a large body must not ride along (issues 11 and 26: object-heavy
 * values cost ~20x their JSON in heap).
 */
export const DEFAULT_MAX_TASK_ARGUMENT_BYTES = 64 * 1024
/** A handler still running after this long is aborted and answered -32603 (issue 11); 0 disables. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 5 * 60_000
/** Open `subscriptions/listen` streams, in all and per caller (`callerOf`). */
export const DEFAULT_MAX_LISTEN_STREAMS = 1000
export const DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER = 100
/** Output queued for a slow SSE client before it is dropped, in bytes. */
export const DEFAULT_MAX_STREAM_BUFFER_BYTES = 256 * 1024
const MIN_STREAM_BUFFER_BYTES = 4096
/** Default per-owner bound: a tenth of `maxTasks`, so one caller can never hold the whole store. */
export const DEFAULT_OWNER_SHARE = 10
export const DEFAULT_MAX_TASK_BYTES = 1024 * 1024
export const DEFAULT_MAX_STORED_BYTES = 64 * 1024 * 1024
/** HMAC-SHA256 keys shorter than its output weaken it. */
export const MIN_REQUEST_STATE_SECRET_BYTES = 32

/** When modern tools/call checks `Mcp-Param-*` headers (see lib/endpoint/param-headers.ts). */
export const PARAM_HEADER_MODES = Object.freeze(['auto', 'always', 'never'] as const)
export type ParamHeaderMode = typeof PARAM_HEADER_MODES[number]
export const DEFAULT_PARAM_HEADER_MODE: ParamHeaderMode = 'auto'

export const DEPLOYMENT_ERAS = Object.freeze(['legacy', 'modern', 'dual'] as const)
export type DeploymentEra = typeof DEPLOYMENT_ERAS[number]

/** A value, or a function of the request that computes it per request. */
export type PerRequest<T> = T | ((request: FastifyRequest) => T)

/** Settings of the tasks extension (read only with `tasks: true`). */
export interface TaskOptions {
  /** How long a task is kept after its creation in ms (its `ttlMs`); default 3600000 (1 hour). */
  ttlMs?: number
  /** The `pollIntervalMs` suggested to clients; default 1000. */
  pollIntervalMs?: number
  /** Most tasks kept at once (finished ones are evicted first); default 1000. */
  maxTasks?: number
  /**
   * Heap bytes of its request a task may keep (its parsed `arguments`, the
   * client's capabilities and info), estimated from their shape (objects,
   * arrays, strings), not their JSON length; default 65536. A call over it
   * runs inline, or is refused with -32602 when the task is `required`.
   */
  maxArgumentBytes?: number
  /** Most tasks one owner may have at once (its finished ones are evicted first); default a tenth of `maxTasks`, at least 1. */
  maxTasksPerOwner?: number
  /** Most bytes (JSON) one task may keep: its questions, answers and result; a larger result fails the task; default 1 MiB. */
  maxTaskBytes?: number
  /** Most bytes (JSON) all tasks together may keep (finished ones are evicted first); default 64 MiB. */
  maxStoredBytes?: number
  /**
   * Where task records live: a function of the limits returning a `TaskStore`
   * (`redisTaskStore()` from `fastify-mcp-capabilities/redis`, or your own);
   * default one in-memory store per endpoint.
   */
  store?: TaskStoreFactory
  /** The authorization context a task is bound to; default the caller (lib/auth/caller.ts): the authenticated principal, else a digest of the `Authorization` header. */
  owner?: (request: FastifyRequest) => string
}

/** Bounds on `subscriptions/listen` streams; over them a listen request is refused (429 per caller, 503 in all). */
export interface ListenOptions {
  /** Open listen streams in all; default 1000. */
  maxStreams?: number
  /** Open listen streams per caller (`callerOf`: principal, credential digest, or `anonymous`); default 100. */
  maxStreamsPerCaller?: number
}

/**
 * The parts several instances share (`redisScale()` from the `./redis` entry
 * returns them all); each defaults to an in-memory one.
 */
export interface ScaleOptions {
  /** Carries change notifications (and task status) to the listen streams of every instance. */
  eventBus?: EventBus
  /** Carries a legacy client's POSTed answer to the instance whose request waits for it. */
  answerRouter?: AnswerRouter
  /** Task records (`tasks: true`), like `taskOptions.store` (give it in one place only). */
  taskStore?: TaskStoreFactory
}

export interface CacheHintOptions {
  ttlMs?: PerRequest<number>
  cacheScope?: PerRequest<CacheScope>
}

/** `serverInfo`: the wire `Implementation` (name, version, title, description, icons, websiteUrl). */
export type ServerInfo = Implementation
export type { CacheScope, Icon }

export interface McpCapabilitiesOptions {
  /** The server module: an object whose methods are the MCP handlers. */
  server: AnyServerModule
  /** Identifies this server in `initialize` and `server/discover` results. */
  serverInfo: ServerInfo
  /** Which protocol eras the endpoint serves; default `'dual'`. */
  era?: DeploymentEra
  /** Endpoint path; default `/mcp`. */
  path?: string
  /** Natural-language guidance sent in `initialize` and `server/discover` results. */
  instructions?: string
  /** Cache hints of the `server/discover` result; defaults `ttlMs: 0`, `cacheScope: 'private'`. */
  discover?: CacheHintOptions
  /** Cache hints of list and read results (modern); a handler may override them per result. */
  cache?: CacheHintOptions
  /** Origins allowed to call the endpoint (`Origin` header); `true` allows any. */
  allowedOrigins?: string[] | true
  /** Host names (with or without port) allowed in the `Host` header; `true` allows any. */
  allowedHosts?: string[] | true
  /** Serve (and advertise) the tasks extension in the modern era; default `false`. */
  tasks?: boolean
  /** Limits of the tasks extension's in-memory store. */
  taskOptions?: TaskOptions
  /** Largest accepted request body in bytes; default 1 MiB. */
  bodyLimit?: number
  /** Interval of keep-alive comments on quiet `subscriptions/listen` streams in ms; default 15000, `0` sends none. */
  keepAliveMs?: number
  /**
   * Key(s) that sign the modern era's `requestState` (HMAC-SHA256), each at
   * least 32 bytes; with several, the first signs and all verify (rotation).
   * Default: a random key per endpoint instance, so a retry must come back to
   * the same process; give every instance the same secret to spread retries.
   */
  requestStateSecret?: string | Buffer | Array<string | Buffer>
  /** How long a `requestState` stays valid in ms; default 900000 (15 minutes). */
  requestStateTtlMs?: number
  /** Legacy era: how long `ctx.elicit()` and friends wait for the client's answer in ms; default 60000. */
  clientRequestTimeoutMs?: number
  /** A handler still pending after this many ms gets its `ctx.signal` aborted and its request answered -32603; default 300000, `0` never. */
  handlerTimeoutMs?: number
  /** Bounds on open `subscriptions/listen` streams. */
  listenOptions?: ListenOptions
  /** Bytes queued for a slow SSE client (listen and request streams) before it is dropped; default 262144. */
  maxStreamBufferBytes?: number
  /**
   * Modern tools/call: when to check `Mcp-Param-*` headers against the
   * arguments (the tools' `x-mcp-header` annotations, from `listTools`);
   * default `'auto'` (see lib/endpoint/param-headers.ts), `'always'`, `'never'`.
   */
  validateParamHeaders?: ParamHeaderMode
  /**
   * Check every handler result against its method's wire schema for the
   * request's era before sending it; a mismatch is logged and answered
   * -32603. Default `false` (turn it on in development and tests).
   */
  validateResults?: boolean
  /**
   * What a `tools/call` handler that throws (anything but an `McpError`)
   * answers: `'message'` (default) a tool execution error (`isError: true`)
   * carrying the error's message, so the model can correct itself; `'mask'`
   * the same with a generic text, for deployments whose error messages must
   * not reach clients. Either way the error is logged with its details.
   */
  toolErrors?: ToolErrorMode
  /**
   * Pagination of the lists served from definitions (`tools/list`,
   * `prompts/list`, `resources/list`, `resources/templates/list`): at most
   * this many items per page, with an opaque `nextCursor`. Default: off (the
   * whole list in one result; many clients ignore `nextCursor`).
   */
  listPageSize?: number
  /**
   * The shared parts that let any number of instances serve behind a plain
   * load balancer, e.g. `redisScale({ url })` from `fastify-mcp-capabilities/redis`.
   * The endpoint waits for them at registration and closes them with the app.
   */
  scale?: ScaleOptions
  /** The event bus alone (instead of `scale.eventBus`); default in memory, this process only. */
  eventBus?: EventBus
  /** The legacy answer router alone (instead of `scale.answerRouter`); default in memory, this process only. */
  answerRouter?: AnswerRouter
  /**
   * Make the endpoint an OAuth 2.1 resource server (MCP authorization): every
   * request needs a bearer token issued for `resource` (see README, Authorization).
   */
  authorization?: AuthorizationOptions
  /**
   * Serve the routes declared with `config: { mcp: true | {...} }` (after this
   * plugin, in its context and the ones inside it) as tools: `true`, or
   * settings of how a call reaches the route (README, Routes as tools).
   */
  routes?: boolean | RoutesOptions
}

export interface ResolvedCacheHints {
  ttlMs: PerRequest<number>
  cacheScope: PerRequest<CacheScope>
}

export interface ResolvedOptions {
  server: AnyServerModule
  serverInfo: Readonly<ServerInfo>
  era: DeploymentEra
  path: string
  instructions: string | undefined
  discover: ResolvedCacheHints
  cache: ResolvedCacheHints
  allowedOrigins: ReadonlySet<string> | true | undefined
  allowedHosts: ReadonlySet<string> | true | undefined
  tasks: boolean
  taskLimits: TaskLimits
  taskOwner: ((request: FastifyRequest) => string) | undefined
  taskMaxArgumentBytes: number
  taskStore: TaskStoreFactory | undefined
  bodyLimit: number
  keepAliveMs: number
  requestStateKeys: readonly Buffer[]
  requestStateTtlMs: number
  clientRequestTimeoutMs: number
  handlerTimeoutMs: number
  maxListenStreams: number
  maxListenStreamsPerCaller: number
  maxStreamBufferBytes: number
  validateParamHeaders: ParamHeaderMode
  validateResults: boolean
  toolErrors: ToolErrorMode
  listPageSize: number | undefined
  /** Given shared parts (undefined: the in-memory defaults). */
  eventBus: EventBus | undefined
  answerRouter: AnswerRouter | undefined
  authorization: ResolvedAuthorization | undefined
  /** With the `routes` option: how route-backed tools call their route. */
  routes: RouteCallSettings | undefined
}

/** Our options, plus (last) the three Fastify's `register` itself reads from the same object. */
const KNOWN_OPTIONS: ReadonlySet<string> = new Set([
  'server', 'serverInfo', 'era', 'path', 'instructions', 'discover', 'cache',
  'allowedOrigins', 'allowedHosts', 'tasks', 'taskOptions', 'bodyLimit', 'keepAliveMs', 'validateParamHeaders', 'validateResults', 'toolErrors', 'listPageSize', 'scale', 'eventBus', 'answerRouter',
  'requestStateSecret', 'requestStateTtlMs', 'clientRequestTimeoutMs', 'handlerTimeoutMs', 'listenOptions', 'maxStreamBufferBytes', 'authorization', 'routes',
  'prefix', 'logLevel', 'logSerializers'
])

function optionalString (name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'string') throw new FST_MCP_INVALID_OPTION(name, 'expected a string')
  return value
}

function checkServerInfo (value: unknown): Readonly<ServerInfo> {
  if (!isJsonObject(value)) throw new FST_MCP_INVALID_OPTION('serverInfo', 'expected an object with name and version')
  const { name, version, title, description, icons, websiteUrl } = value
  if (typeof name !== 'string' || name.length === 0) throw new FST_MCP_INVALID_OPTION('serverInfo.name', 'expected a non-empty string')
  if (typeof version !== 'string' || version.length === 0) throw new FST_MCP_INVALID_OPTION('serverInfo.version', 'expected a non-empty string')
  const info: ServerInfo = { name, version }
  const t = optionalString('serverInfo.title', title)
  if (t !== undefined) info.title = t
  const d = optionalString('serverInfo.description', description)
  if (d !== undefined) info.description = d
  const w = optionalString('serverInfo.websiteUrl', websiteUrl)
  if (w !== undefined) {
    if (!URL.canParse(w)) throw new FST_MCP_INVALID_OPTION('serverInfo.websiteUrl', 'expected a URL')
    info.websiteUrl = w
  }
  if (icons !== undefined) {
    if (!Array.isArray(icons) || !icons.every((i) => isJsonObject(i) && typeof i.src === 'string' && URL.canParse(i.src))) {
      throw new FST_MCP_INVALID_OPTION('serverInfo.icons', 'expected an array of { src (a URI), mimeType?, sizes?, theme? }')
    }
    info.icons = JSON.parse(JSON.stringify(icons)) as Icon[]
  }
  return Object.freeze(info)
}

function checkTtl (name: string, value: unknown): PerRequest<number> {
  if (value === undefined) return DEFAULT_TTL_MS
  if (typeof value === 'function') return value as PerRequest<number>
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new FST_MCP_INVALID_OPTION(name, 'expected a non-negative integer (milliseconds) or a function of the request')
  }
  return value
}

function checkScope (name: string, value: unknown): PerRequest<CacheScope> {
  if (value === undefined) return DEFAULT_CACHE_SCOPE
  if (typeof value === 'function') return value as PerRequest<CacheScope>
  if (value !== 'public' && value !== 'private') {
    throw new FST_MCP_INVALID_OPTION(name, 'expected "public", "private" or a function of the request')
  }
  return value
}

function checkHints (name: string, value: unknown): ResolvedCacheHints {
  if (value === undefined) return { ttlMs: DEFAULT_TTL_MS, cacheScope: DEFAULT_CACHE_SCOPE }
  if (!isJsonObject(value)) throw new FST_MCP_INVALID_OPTION(name, 'expected an object { ttlMs?, cacheScope? }')
  return { ttlMs: checkTtl(`${name}.ttlMs`, value.ttlMs), cacheScope: checkScope(`${name}.cacheScope`, value.cacheScope) }
}

function checkAllowList (name: string, value: unknown, normalise: (entry: string) => string): ReadonlySet<string> | true | undefined {
  if (value === undefined) return undefined
  if (value === true) return true
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.length > 0)) {
    throw new FST_MCP_INVALID_OPTION(name, 'expected an array of non-empty strings, or true to allow any')
  }
  return new Set(value.map(normalise))
}

function normaliseOrigin (origin: string): string {
  if (!URL.canParse(origin)) throw new FST_MCP_INVALID_OPTION('allowedOrigins', `"${origin}" is not an origin such as https://app.example.com`)
  return new URL(origin).origin
}

function checkSecrets (value: unknown): readonly Buffer[] {
  if (value === undefined) return Object.freeze([randomBytes(MIN_REQUEST_STATE_SECRET_BYTES)])
  const list = Array.isArray(value) ? value : [value]
  const keys = list.map((secret) => typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.isBuffer(secret) ? Buffer.from(secret) : undefined)
  if (keys.length === 0 || !keys.every((k) => k !== undefined && k.length >= MIN_REQUEST_STATE_SECRET_BYTES)) {
    throw new FST_MCP_INVALID_OPTION('requestStateSecret',
      `expected a string or Buffer of at least ${MIN_REQUEST_STATE_SECRET_BYTES} bytes, or a non-empty array of them (the first signs)`)
  }
  return Object.freeze(keys as Buffer[])
}

function checkMs (name: string, value: unknown, fallback: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0 || value > max) {
    throw new FST_MCP_INVALID_OPTION(name, `expected an integer from 1 to ${max} (milliseconds)`)
  }
  return value
}

function positiveInteger (name: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new FST_MCP_INVALID_OPTION(name, min === 1 ? 'expected a positive integer' : `expected an integer of at least ${min}`)
  }
  return value
}

function checkListenOptions (value: unknown): { maxStreams: number, maxStreamsPerCaller: number } {
  if (value !== undefined && !isJsonObject(value)) throw new FST_MCP_INVALID_OPTION('listenOptions', 'expected an object { maxStreams?, maxStreamsPerCaller? }')
  const { maxStreams, maxStreamsPerCaller } = value ?? {}
  return {
    maxStreams: positiveInteger('listenOptions.maxStreams', maxStreams, DEFAULT_MAX_LISTEN_STREAMS),
    maxStreamsPerCaller: positiveInteger('listenOptions.maxStreamsPerCaller', maxStreamsPerCaller, DEFAULT_MAX_LISTEN_STREAMS_PER_CALLER)
  }
}

function checkCount (name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new FST_MCP_INVALID_OPTION(name, 'expected a positive integer')
  return value
}

interface CheckedTaskOptions {
  limits: TaskLimits
  owner: ((request: FastifyRequest) => string) | undefined
  store: TaskStoreFactory | undefined
  maxArgumentBytes: number
}

function checkTaskOptions (value: unknown): CheckedTaskOptions {
  if (value !== undefined && !isJsonObject(value)) {
    throw new FST_MCP_INVALID_OPTION('taskOptions', 'expected an object { ttlMs?, pollIntervalMs?, maxTasks?, maxTasksPerOwner?, maxTaskBytes?, maxStoredBytes?, maxArgumentBytes?, store?, owner? }')
  }
  const { ttlMs, pollIntervalMs, maxTasks, maxTasksPerOwner, maxTaskBytes, maxStoredBytes, maxArgumentBytes, store, owner } = value ?? {}
  if (owner !== undefined && typeof owner !== 'function') throw new FST_MCP_INVALID_OPTION('taskOptions.owner', 'expected a function of the request returning a string')
  if (store !== undefined && typeof store !== 'function') {
    throw new FST_MCP_INVALID_OPTION('taskOptions.store', 'expected a function of the task limits returning a TaskStore (e.g. redisTaskStore(...))')
  }
  const total = checkCount('taskOptions.maxTasks', maxTasks, DEFAULT_MAX_TASKS)
  const taskBytes = checkCount('taskOptions.maxTaskBytes', maxTaskBytes, DEFAULT_MAX_TASK_BYTES)
  const storedBytes = checkCount('taskOptions.maxStoredBytes', maxStoredBytes, Math.max(DEFAULT_MAX_STORED_BYTES, taskBytes))
  if (storedBytes < taskBytes) throw new FST_MCP_INVALID_OPTION('taskOptions.maxStoredBytes', `expected at least taskOptions.maxTaskBytes (${taskBytes})`)
  return {
    limits: Object.freeze({
      ttlMs: checkMs('taskOptions.ttlMs', ttlMs, DEFAULT_TASK_TTL_MS, MAX_TIMER_MS),
      pollIntervalMs: checkMs('taskOptions.pollIntervalMs', pollIntervalMs, DEFAULT_TASK_POLL_INTERVAL_MS, MAX_TIMER_MS),
      maxTasks: total,
      maxTasksPerOwner: checkCount('taskOptions.maxTasksPerOwner', maxTasksPerOwner, Math.ceil(total / DEFAULT_OWNER_SHARE)),
      maxTaskBytes: taskBytes,
      maxStoredBytes: storedBytes
    }),
    owner: owner as ((request: FastifyRequest) => string) | undefined,
    store: store as TaskStoreFactory | undefined,
    maxArgumentBytes: positiveInteger('taskOptions.maxArgumentBytes', maxArgumentBytes, DEFAULT_MAX_TASK_ARGUMENT_BYTES)
  }
}

const PART_METHODS = Object.freeze({
  eventBus: ['publish', 'subscribe', 'close'],
  answerRouter: ['requestId', 'attach', 'forward', 'close']
} as const)

function checkPart<K extends keyof typeof PART_METHODS> (name: K, value: unknown): void {
  const methods = PART_METHODS[name]
  if (value === null || typeof value !== 'object' || !methods.every((m) => typeof (value as Record<string, unknown>)[m] === 'function') ||
    ((value as { ready?: unknown }).ready !== undefined && typeof (value as { ready?: unknown }).ready !== 'function')) {
    throw new FST_MCP_INVALID_OPTION(name, `expected an object with ${methods.join(', ')} (and optionally ready) methods`)
  }
}

/** The shared parts, from `scale` or given alone (not both). */
function checkScale (options: Record<string, unknown>): { eventBus: EventBus | undefined, answerRouter: AnswerRouter | undefined } {
  const { scale } = options
  if (scale !== undefined && !isJsonObject(scale)) throw new FST_MCP_INVALID_OPTION('scale', 'expected an object { eventBus?, answerRouter?, taskStore? }, e.g. redisScale({ url })')
  const parts: Record<keyof typeof PART_METHODS, unknown> = { eventBus: undefined, answerRouter: undefined }
  for (const name of Object.keys(PART_METHODS) as Array<keyof typeof PART_METHODS>) {
    const alone = options[name]
    const inScale = scale?.[name]
    if (alone !== undefined && inScale !== undefined) throw new FST_MCP_INVALID_OPTION(name, `given both alone and in "scale": give it once`)
    const part = alone ?? inScale
    if (part !== undefined) checkPart(name, part)
    parts[name] = part
  }
  return parts as { eventBus: EventBus | undefined, answerRouter: AnswerRouter | undefined }
}

/** Validates and normalises the options; throws a coded error for the first bad one. */
export function resolveOptions (options: unknown): ResolvedOptions {
  if (!isJsonObject(options)) throw new FST_MCP_INVALID_OPTION('options', 'expected an object')
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) throw new FST_MCP_INVALID_OPTION(key, `unknown option (known: ${[...KNOWN_OPTIONS].slice(0, -3).join(', ')})`)
  }
  const { server } = options
  if (server === null || typeof server !== 'object' || Array.isArray(server)) {
    throw new FST_MCP_INVALID_SERVER('the "server" option must be an object whose methods are the MCP handlers')
  }
  const era = options.era === undefined ? DEFAULT_ERA : options.era
  if (!DEPLOYMENT_ERAS.includes(era as DeploymentEra)) {
    throw new FST_MCP_INVALID_ERA(String(era), DEPLOYMENT_ERAS.join(', '))
  }
  const path = options.path === undefined ? DEFAULT_PATH : options.path
  if (typeof path !== 'string' || !path.startsWith('/')) throw new FST_MCP_INVALID_OPTION('path', 'expected a string starting with "/"')
  const tasks = options.tasks === undefined ? false : options.tasks
  if (typeof tasks !== 'boolean') throw new FST_MCP_INVALID_OPTION('tasks', 'expected a boolean')
  const taskOptions = checkTaskOptions(options.taskOptions)
  const listen = checkListenOptions(options.listenOptions)
  const bodyLimit = options.bodyLimit === undefined ? DEFAULT_BODY_LIMIT : options.bodyLimit
  if (typeof bodyLimit !== 'number' || !Number.isSafeInteger(bodyLimit) || bodyLimit <= 0) {
    throw new FST_MCP_INVALID_OPTION('bodyLimit', 'expected a positive integer (bytes)')
  }
  const keepAliveMs = options.keepAliveMs === undefined ? DEFAULT_KEEP_ALIVE_MS : options.keepAliveMs
  if (typeof keepAliveMs !== 'number' || !Number.isSafeInteger(keepAliveMs) || keepAliveMs < 0 || keepAliveMs > MAX_TIMER_MS) {
    throw new FST_MCP_INVALID_OPTION('keepAliveMs', `expected an integer from 0 (no keep-alive) to ${MAX_TIMER_MS} (milliseconds)`)
  }
  const validateResults = options.validateResults === undefined ? false : options.validateResults
  if (typeof validateResults !== 'boolean') throw new FST_MCP_INVALID_OPTION('validateResults', 'expected a boolean')
  const toolErrors = options.toolErrors === undefined ? DEFAULT_TOOL_ERROR_MODE : options.toolErrors
  if (!TOOL_ERROR_MODES.includes(toolErrors as ToolErrorMode)) {
    throw new FST_MCP_INVALID_OPTION('toolErrors', `expected one of ${TOOL_ERROR_MODES.map((m) => `"${m}"`).join(', ')}`)
  }
  const validateParamHeaders = options.validateParamHeaders === undefined ? DEFAULT_PARAM_HEADER_MODE : options.validateParamHeaders
  if (!PARAM_HEADER_MODES.includes(validateParamHeaders as ParamHeaderMode)) {
    throw new FST_MCP_INVALID_OPTION('validateParamHeaders', `expected one of ${PARAM_HEADER_MODES.map((m) => `"${m}"`).join(', ')}`)
  }
  const listPageSize = options.listPageSize
  if (listPageSize !== undefined && (typeof listPageSize !== 'number' || !Number.isSafeInteger(listPageSize) || listPageSize < 1 || listPageSize > MAX_LIST_PAGE_SIZE)) {
    throw new FST_MCP_INVALID_OPTION('listPageSize', `expected an integer from 1 to ${MAX_LIST_PAGE_SIZE} (items per page)`)
  }
  const { eventBus, answerRouter } = checkScale(options)
  const scaleStore = isJsonObject(options.scale) ? options.scale.taskStore : undefined
  if (scaleStore !== undefined && typeof scaleStore !== 'function') {
    throw new FST_MCP_INVALID_OPTION('scale.taskStore', 'expected a function of the task limits returning a TaskStore (e.g. redisTaskStore(...))')
  }
  if (scaleStore !== undefined && taskOptions.store !== undefined) {
    throw new FST_MCP_INVALID_OPTION('taskOptions.store', 'given both here and as "scale.taskStore": give it once')
  }
  const taskStore = taskOptions.store ?? scaleStore as TaskStoreFactory | undefined
  if (taskStore !== undefined && options.requestStateSecret === undefined && tasks) throw new FST_MCP_REQUEST_STATE_SECRET_REQUIRED('task store')
  const requestStateKeys = checkSecrets(options.requestStateSecret)
  // A part given here is shared by instances, unless it is one of the in-memory defaults.
  const sharedBus = eventBus !== undefined && !(eventBus instanceof MemoryEventBus)
  if (sharedBus && options.requestStateSecret === undefined) throw new FST_MCP_REQUEST_STATE_SECRET_REQUIRED('event bus')
  const sharedRouter = answerRouter !== undefined && !(answerRouter instanceof MemoryAnswerRouter)
  if (sharedRouter && options.requestStateSecret === undefined) throw new FST_MCP_REQUEST_STATE_SECRET_REQUIRED('answer router')
  return {
    server: server as AnyServerModule,
    serverInfo: checkServerInfo(options.serverInfo),
    era: era as DeploymentEra,
    path,
    instructions: optionalString('instructions', options.instructions),
    discover: checkHints('discover', options.discover),
    cache: checkHints('cache', options.cache),
    allowedOrigins: checkAllowList('allowedOrigins', options.allowedOrigins, normaliseOrigin),
    allowedHosts: checkAllowList('allowedHosts', options.allowedHosts, (h) => h.toLowerCase()),
    tasks,
    taskLimits: taskOptions.limits,
    taskOwner: taskOptions.owner,
    taskMaxArgumentBytes: taskOptions.maxArgumentBytes,
    taskStore,
    bodyLimit,
    keepAliveMs,
    requestStateKeys,
    requestStateTtlMs: checkMs('requestStateTtlMs', options.requestStateTtlMs, DEFAULT_REQUEST_STATE_TTL_MS, Number.MAX_SAFE_INTEGER),
    clientRequestTimeoutMs: checkMs('clientRequestTimeoutMs', options.clientRequestTimeoutMs, DEFAULT_CLIENT_REQUEST_TIMEOUT_MS, MAX_TIMER_MS),
    handlerTimeoutMs: options.handlerTimeoutMs === 0 ? 0 : checkMs('handlerTimeoutMs', options.handlerTimeoutMs, DEFAULT_HANDLER_TIMEOUT_MS, MAX_TIMER_MS),
    maxListenStreams: listen.maxStreams,
    maxListenStreamsPerCaller: listen.maxStreamsPerCaller,
    maxStreamBufferBytes: positiveInteger('maxStreamBufferBytes', options.maxStreamBufferBytes, DEFAULT_MAX_STREAM_BUFFER_BYTES, MIN_STREAM_BUFFER_BYTES),
    validateParamHeaders: validateParamHeaders as ParamHeaderMode,
    validateResults,
    toolErrors: toolErrors as ToolErrorMode,
    listPageSize,
    eventBus,
    answerRouter,
    authorization: resolveAuthorization(options.authorization),
    routes: checkRoutesOption(options.routes)
  }
}
