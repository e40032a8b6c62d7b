/**
 * Registration options: their types (with the docs users see in their
 * editor), their defaults, and the one declarative spec (lib/check/) that
 * checks them at `register` time. A bad option fails registration with a
 * coded error naming its exact path, never a request later.
 *
 * The tree, everyday choices first, then wiring and tuning:
 *
 *   server, serverInfo, era, path, instructions,
 *   security: { allowedOrigins, allowedHosts, toolErrors: 'message' | 'mask' }, authorization { ... },
 *   routes: true | { ... }, telemetry: true | false | { tracerProvider, meterProvider },
 *   tasks: true | { ttlMs, pollIntervalMs, maxTasks, maxTasksPerOwner, maxTaskBytes, maxStoredBytes, maxArgumentBytes, owner },
 *   sessions: true | { maxSessions, maxSessionsPerCaller, idleTimeoutMs },
 *   scale: redisScale() | { eventBus, answerRouter, taskStore, catalogStore, sessionStore },
 *   requestState: { secret, ttlMs },
 *   cacheHints: { discover: { ttlMs, cacheScope }, results: { ttlMs, cacheScope } },
 *   limits: { bodyLimit, handlerTimeoutMs, clientRequestTimeoutMs, maxStreamBufferBytes, maxArgumentValues, listPageSize, listen: { maxStreams, maxStreamsPerCaller, keepAliveMs } },
 *   validate: { results, paramHeaders }
 *
 * Each setting keeps its name down to the code that uses it
 * (`options.limits.listen.keepAliveMs` is the registry's `keepAliveMs`).
 */
import { randomBytes } from 'node:crypto'
import type { TelemetryOptions } from './telemetry/telemetry-options.js'
import type { FastifyRequest } from 'fastify'
import { FST_MCP_INVALID_ERA, FST_MCP_INVALID_OPTION, FST_MCP_INVALID_SERVER, FST_MCP_REQUEST_STATE_SECRET_REQUIRED } from './errors.js'
import { type AnswerRouter, MemoryAnswerRouter } from './parts/answer-router.js'
import { type EventBus, MemoryEventBus } from './parts/event-bus.js'
import { type CatalogStore, MemoryCatalogStore } from './parts/catalog-store.js'
import { MemorySessionStore, type SessionStore } from './parts/session-store.js'
import type { CacheScope, Icon, Implementation } from './protocol/schemas.js'
import type { AnyServerModule } from './server-module/contract.js'
import type { TaskLimits, TaskStoreFactory } from './parts/task-store.js'
import { DEFAULT_MAX_STREAM_BUFFER_BYTES } from './streams/sse-writer.js'
import { DEFAULT_MAX_ARGUMENT_VALUES } from './definitions/standard-validation.js'
import { AUTHORIZATION, type AuthorizationOptions } from './auth/authorization-options.js'
import { array, type At, boolean, check, custom, func, group, integer, map, maybe, oneOf, or, perRequest, type Spec, type SpecValue, string, toggle, withMethods } from './check/option-spec.js'
import { MAX_TIMER_MS } from './common/timers.js'
import { DEFAULT_TOOL_ERROR_MODE, TOOL_ERROR_MODES, type ToolErrorMode } from './handler/tool-errors.js'
import { ROUTES_OPTION, type RoutesOptions } from './routes/routes-option.js'

export const DEFAULT_PATH = '/mcp'
export const DEFAULT_ERA = 'dual'
export const DEFAULT_CACHE_TTL_MS = 0
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
 * info), in estimated heap bytes. A task lives up to `tasks.ttlMs` after its request
 * is gone, so a large body must not ride along (issues 11 and 26: object-heavy
 * values cost ~20x their JSON in heap).
 */
export const DEFAULT_MAX_ARGUMENT_BYTES = 64 * 1024
/** A handler still running after this long is aborted and answered -32603 (issue 11); 0 disables. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 5 * 60_000
/** Open `subscriptions/listen` streams, in all and per caller (`callerOf`). */
export const DEFAULT_MAX_STREAMS = 1000
export const DEFAULT_MAX_STREAMS_PER_CALLER = 100
const MIN_STREAM_BUFFER_BYTES = 4096
/** Default per-owner bound: a tenth of `maxTasks`, so one caller can never hold the whole store. */
export const DEFAULT_OWNER_SHARE = 10
export const DEFAULT_MAX_TASK_BYTES = 1024 * 1024
export const DEFAULT_MAX_STORED_BYTES = 64 * 1024 * 1024
/** A secret shorter than the 256-bit AES key derived from it would weaken that key. */
export const MIN_REQUEST_STATE_SECRET_BYTES = 32

/** When modern tools/call checks `Mcp-Param-*` headers (see lib/endpoint/param-headers.ts). */
export const PARAM_HEADER_MODES = Object.freeze(['auto', 'always', 'never'] as const)
export type ParamHeaderMode = typeof PARAM_HEADER_MODES[number]
export const DEFAULT_PARAM_HEADER_MODE: ParamHeaderMode = 'auto'

export const DEPLOYMENT_ERAS = Object.freeze(['legacy', 'modern', 'dual'] as const)
export type DeploymentEra = typeof DEPLOYMENT_ERAS[number]

/** A value, or a function of the request that computes it per request. */
export type PerRequest<T> = T | ((request: FastifyRequest) => T)

/** `serverInfo`: the wire `Implementation` (name, version, title, description, icons, websiteUrl). */
export type ServerInfo = Implementation
export type { CacheScope }

/** `tasks`: settings of the tasks extension (`tasks: true` takes every default). */
export interface TaskOptions {
  /** How long a task is kept after its creation in ms (its `ttlMs`); default 3600000 (1 hour). */
  ttlMs?: number
  /** The `pollIntervalMs` suggested to clients in ms; default 1000. */
  pollIntervalMs?: number
  /** Most tasks kept at once (finished ones are evicted first); default 1000. */
  maxTasks?: number
  /** Most tasks one owner may have at once (its finished ones are evicted first); default a tenth of `maxTasks`, at least 1. */
  maxTasksPerOwner?: number
  /** Most bytes (JSON) one task may keep: its questions, answers and result; a larger result fails the task; default 1048576 (1 MiB). */
  maxTaskBytes?: number
  /** Most bytes (JSON) all tasks together may keep (finished ones are evicted first), at least `maxTaskBytes`; default 67108864 (64 MiB). */
  maxStoredBytes?: number
  /**
   * Heap bytes of its request a task may keep (its parsed `arguments`, the
   * client's capabilities and info), estimated from their shape (objects,
   * arrays, strings), not their JSON length; default 65536. A call over it
   * runs inline, or is refused with -32602 when the task is `required`.
   */
  maxArgumentBytes?: number
  /**
   * The authorization context a task is bound to; default the caller
   * (`callerOf` in lib/handler/caller.ts): the authenticated principal, else a digest of the
   * `Authorization` header, else `anonymous`.
   */
  owner?: (request: FastifyRequest) => string
}

/**
 * `scale`: the parts several instances share, e.g. `redisScale({ url })`
 * from `fastify-mcp-capabilities/redis`, which returns all three. Each
 * defaults to an in-memory one (this process only). A given event bus or
 * answer router belongs to this endpoint: it waits for it at registration
 * (`ready()`, at most 30 s) and closes it with the app.
 */
export interface ScaleOptions {
  /** Carries change notifications, task status and the legacy log level to every instance. */
  eventBus?: EventBus
  /** Carries a legacy client's POSTed answer to the instance whose request waits for it. */
  answerRouter?: AnswerRouter
  /** Where task records live (with `tasks`): a function of the task limits returning a `TaskStore`, e.g. `redisTaskStore()`. */
  taskStore?: TaskStoreFactory
  /** Where runtime catalogue changes are recorded, so an instance started later applies them before its first request. */
  catalogStore?: CatalogStore
  /** Where legacy sessions live (with `sessions`), e.g. `redisScale()`'s. */
  sessionStore?: SessionStore
}

/**
 * `sessions`: optional legacy `Mcp-Session-Id` sessions (`true` takes every
 * default). A session is issued at `initialize`, kept in `scale.sessionStore`
 * (any instance serves it), bound to the caller that opened it; it gives
 * legacy clients `resources/subscribe` and a log level of their own.
 */
export interface SessionOptions {
  /** Sessions kept in all (the least recently used makes room); default 10000. */
  maxSessions?: number
  /** Sessions per caller (its least recently used makes room); default 100. */
  maxSessionsPerCaller?: number
  /** A session unused this long (ms) is forgotten, and its id answered 404; default 1800000 (30 minutes). */
  idleTimeoutMs?: number
}

/**
 * `requestState`: the modern era's `requestState` (multi round-trip
 * requests) is encrypted and authenticated with AES-256-GCM under a key
 * derived (HKDF-SHA256) from the secret, and bound to the caller.
 */
export interface RequestStateOptions {
  /**
   * The secret(s), each at least 32 bytes; with several, the first seals and
   * all open (rotation). Default: a random one per endpoint instance, so a
   * retry must come back to the same process. Required with any shared part
   * in `scale`: give every instance the same secret.
   */
  secret?: string | Buffer | Array<string | Buffer>
  /** How long a `requestState` stays valid in ms; default 900000 (15 minutes). */
  ttlMs?: number
}

/** Cache hints of modern results: each a value or a function of the request. */
export interface CacheHintOptions {
  /** How long a client may reuse the result in ms; default 0 (do not reuse). */
  ttlMs?: PerRequest<number>
  /** Whether a shared cache may keep it; default `'private'`. */
  cacheScope?: PerRequest<CacheScope>
}

/** `cacheHints`: the modern era's cache hints. */
export interface CacheHintsOptions {
  /** Of the `server/discover` result. */
  discover?: CacheHintOptions
  /** Of list and read results; a handler may set its own per result. */
  results?: CacheHintOptions
}

/** `limits.listen`: `subscriptions/listen` streams; over a bound a listen request is refused (429 per caller, 503 in all). */
export interface ListenOptions {
  /** Open listen streams in all; default 1000. */
  maxStreams?: number
  /** Open listen streams per caller (`callerOf`: principal, credential digest, or `anonymous`); default 100. */
  maxStreamsPerCaller?: number
  /** Interval of keep-alive comments on quiet listen streams in ms; default 15000, `0` sends none. */
  keepAliveMs?: number
}

/** `limits`: bounds on what one request, handler or stream may take. */
export interface LimitOptions {
  /** Largest accepted request body in bytes; default 1048576 (1 MiB). */
  bodyLimit?: number
  /** A handler still pending after this many ms gets its `ctx.signal` aborted and its request answered -32603; default 300000, `0` never. */
  handlerTimeoutMs?: number
  /** Legacy era: how long `ctx.elicit()` and friends wait for the client's answer in ms; default 60000. */
  clientRequestTimeoutMs?: number
  /** Bytes queued for a slow SSE client (listen and request streams) before it is dropped; at least 4096, default 262144. */
  maxStreamBufferBytes?: number
  /**
   * Values (array items, properties, nested) a defined tool's or prompt's
   * arguments may hold when a Standard Schema library (zod, valibot, arktype)
   * validates them: such a library checks a value whole, issues and all, and
   * cannot be stopped part way. More is a tool error (-32602 for a prompt)
   * before the library runs. Default 4096. JSON Schema and TypeBox schemas
   * are not bounded: their checks stop at the first problem.
   */
  maxArgumentValues?: number
  /**
   * Pagination of the lists served from definitions (`tools/list`,
   * `prompts/list`, `resources/list`, `resources/templates/list`, `skills/list`): at most
   * this many items per page (1 to 10000), with an opaque `nextCursor`.
   * Default: off (the whole list in one result; many clients ignore `nextCursor`).
   */
  listPageSize?: number
  /** Bounds and keep-alive of `subscriptions/listen` streams. */
  listen?: ListenOptions
}

/** `security`: who may call the endpoint from a browser and under which host names, and what errors tell the client. */
export interface SecurityOptions {
  /**
   * Browser origins allowed to call the endpoint (`Origin` header); `true`
   * allows any. Default: on a loopback connection (and `inject()`) loopback
   * origins only; elsewhere a request with an `Origin` is refused unless
   * `allowedHosts` names its host and it matches `Host` (DNS-rebinding defence).
   */
  allowedOrigins?: string[] | true
  /** `Host` header values allowed (names, with or without port); `true` allows any. Default: on a loopback connection loopback names only, elsewhere any. */
  allowedHosts?: string[] | true
  /**
   * What a `tools/call` handler that throws (anything but an `McpError`)
   * answers: `'message'` (default) a tool execution error (`isError: true`)
   * carrying the error's message, so the model can correct itself; `'mask'`
   * the same with a generic text, for deployments whose error messages must
   * not reach clients. Either way the error is logged with its details.
   */
  toolErrors?: ToolErrorMode
}

/** `validate`: checks of the endpoint's own output and of request headers. */
export interface ValidateOptions {
  /**
   * Check every handler result against its method's wire schema for the
   * request's era before sending it; a mismatch is logged and answered
   * -32603. Default `false` (turn it on in development and tests).
   */
  results?: boolean
  /**
   * Modern tools/call: when to check `Mcp-Param-*` headers against the
   * arguments (the tools' `x-mcp-header` annotations, from `listTools`):
   * `'auto'` (default; see lib/endpoint/param-headers.ts), `'always'`, `'never'`.
   */
  paramHeaders?: ParamHeaderMode
}

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
  /** Browser origins and host names allowed (DNS-rebinding defence), and what a throwing tool answers. */
  security?: SecurityOptions
  /**
   * Make the endpoint an OAuth 2.1 resource server (MCP authorization): every
   * request needs a bearer token issued for `resource` (see README, Authorization).
   */
  authorization?: AuthorizationOptions
  /** Serve (and advertise) the tasks extension in the modern era: `true` or its settings; default `false`. */
  tasks?: boolean | TaskOptions
  /** Legacy `Mcp-Session-Id` sessions (resource subscriptions, a log level per session): `true` or their settings; default `false`. */
  sessions?: boolean | SessionOptions
  /** The shared parts that let any number of instances serve behind a plain load balancer; the only place for them. */
  scale?: ScaleOptions
  /** Sealing of the modern era's `requestState`. */
  requestState?: RequestStateOptions
  /** Cache hints of modern results; default `ttlMs: 0`, `cacheScope: 'private'`. */
  cacheHints?: CacheHintsOptions
  /** Bounds on bodies, handlers, client requests, list pages and streams. */
  limits?: LimitOptions
  /** Checks of results and `Mcp-Param-*` headers. */
  validate?: ValidateOptions
  /**
   * Serve the routes declared with `config: { mcp: true | {...} }` (after this
   * plugin, in its context and the ones inside it) as tools: `true`, or
   * settings of how a call reaches the route (README, Routes as tools).
   */
  routes?: boolean | RoutesOptions
  /**
   * OpenTelemetry traces and metrics by the MCP semantic conventions, when
   * `@opentelemetry/api` is installed and a tracer or meter provider is
   * registered. Default `true`; `false` turns them off; an object names the
   * providers to use instead of the global ones.
   */
  telemetry?: boolean | TelemetryOptions
}

const SERVER = custom('an object whose methods are the MCP handlers', (value) => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new FST_MCP_INVALID_SERVER('the "server" option must be an object whose methods are the MCP handlers')
  }
  return value as AnyServerModule
}, true)

const ERA = custom(`one of ${DEPLOYMENT_ERAS.join(', ')}`, (value) => {
  const era = value === undefined ? DEFAULT_ERA : value
  if (!DEPLOYMENT_ERAS.includes(era as DeploymentEra)) throw new FST_MCP_INVALID_ERA(String(era), DEPLOYMENT_ERAS.join(', '))
  return era as DeploymentEra
})

/** Drops absent keys, so the frozen object sent on the wire has only what was given. */
function given<T extends object> (value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T
}

const ICON = map(group({
  src: string({ url: true, required: true, expects: 'a URI' }),
  mimeType: string({}),
  sizes: array(string({}), { expects: 'an array of strings such as "48x48"' }),
  theme: oneOf(['light', 'dark'], {})
}, { required: true }), (icon) => given(icon) as Icon)

const SERVER_INFO = map(group({
  name: string({ nonEmpty: true, required: true }),
  version: string({ nonEmpty: true, required: true }),
  title: string({}),
  description: string({}),
  websiteUrl: string({ url: true }),
  icons: array(ICON, { expects: 'an array of { src (a URI), mimeType?, sizes?, theme? }' })
}, { required: true }), (info): Readonly<ServerInfo> => Object.freeze(given(info) as ServerInfo))

function allowList (normalise: (entry: string, at: At) => string): Spec<ReadonlySet<string> | true | undefined> {
  const entry = custom('a non-empty string', (value, at) => {
    if (typeof value !== 'string' || value.length === 0) at.error('expected a non-empty string')
    return normalise(value as string, at)
  }, true)
  return or(true, map(array(entry, { expects: 'an array of non-empty strings, or true to allow any' }), (list) => list === undefined ? undefined : new Set(list)))
}

const CACHE_HINT = group({
  ttlMs: perRequest(integer({ min: 0, unit: 'milliseconds', default: DEFAULT_CACHE_TTL_MS })),
  cacheScope: perRequest(oneOf(['public', 'private'] as const, { default: DEFAULT_CACHE_SCOPE }))
})

const TASKS = toggle(group({
  ttlMs: integer({ min: 1, max: MAX_TIMER_MS, unit: 'milliseconds', default: DEFAULT_TASK_TTL_MS }),
  pollIntervalMs: integer({ min: 1, max: MAX_TIMER_MS, unit: 'milliseconds', default: DEFAULT_TASK_POLL_INTERVAL_MS }),
  maxTasks: integer({ min: 1, default: DEFAULT_MAX_TASKS }),
  maxTasksPerOwner: integer({ min: 1 }),
  maxTaskBytes: integer({ min: 1, unit: 'bytes', default: DEFAULT_MAX_TASK_BYTES }),
  maxStoredBytes: integer({ min: 1, unit: 'bytes' }),
  maxArgumentBytes: integer({ min: 1, unit: 'bytes', default: DEFAULT_MAX_ARGUMENT_BYTES }),
  owner: func<(request: FastifyRequest) => string>('a function of the request returning a string')
}, {
  finish: (tasks, at) => {
    const { maxArgumentBytes, owner, ...limits } = tasks
    const maxStoredBytes = limits.maxStoredBytes ?? Math.max(DEFAULT_MAX_STORED_BYTES, limits.maxTaskBytes)
    if (maxStoredBytes < limits.maxTaskBytes) at.key('maxStoredBytes').error(`expected at least ${at.key('maxTaskBytes').path} (${limits.maxTaskBytes})`)
    const taskLimits: TaskLimits = Object.freeze({
      ...limits,
      maxTasksPerOwner: limits.maxTasksPerOwner ?? Math.ceil(limits.maxTasks / DEFAULT_OWNER_SHARE),
      maxStoredBytes
    })
    return { limits: taskLimits, maxArgumentBytes, owner }
  }
}), false)

const SCALE = group({
  eventBus: withMethods<EventBus>(['publish', 'subscribe', 'close'], ['ready']),
  answerRouter: withMethods<AnswerRouter>(['requestId', 'attach', 'forward', 'close'], ['ready']),
  taskStore: func<TaskStoreFactory>('a function of the task limits returning a TaskStore (e.g. redisTaskStore(...))'),
  catalogStore: withMethods<CatalogStore>(['record', 'read', 'close']),
  sessionStore: withMethods<SessionStore>(['create', 'touch', 'update', 'delete', 'close'])
})

export const DEFAULT_MAX_SESSIONS = 10_000
export const DEFAULT_MAX_SESSIONS_PER_CALLER = 100
export const DEFAULT_SESSION_IDLE_TIMEOUT_MS = 30 * 60_000

const SESSIONS = toggle(group({
  maxSessions: integer({ min: 1, default: DEFAULT_MAX_SESSIONS }),
  maxSessionsPerCaller: integer({ min: 1, default: DEFAULT_MAX_SESSIONS_PER_CALLER }),
  idleTimeoutMs: integer({ min: 1, max: MAX_TIMER_MS, unit: 'milliseconds', default: DEFAULT_SESSION_IDLE_TIMEOUT_MS })
}), false)

const SECRET_EXPECTS = `a string or Buffer of at least ${MIN_REQUEST_STATE_SECRET_BYTES} bytes, or a non-empty array of them (the first seals)`
const REQUEST_STATE = group({
  secret: custom(SECRET_EXPECTS, (value, at): readonly Buffer[] | undefined => {
    if (value === undefined) return undefined
    const list = Array.isArray(value) ? value as unknown[] : [value]
    const keys = list.map((secret) => typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.isBuffer(secret) ? Buffer.from(secret) : undefined)
    if (keys.length === 0 || !keys.every((k) => k !== undefined && k.length >= MIN_REQUEST_STATE_SECRET_BYTES)) at.error(`expected ${SECRET_EXPECTS}`)
    return Object.freeze(keys as Buffer[])
  }),
  ttlMs: integer({ min: 1, unit: 'milliseconds', default: DEFAULT_REQUEST_STATE_TTL_MS })
})

const LIMITS = group({
  bodyLimit: integer({ min: 1, unit: 'bytes', default: DEFAULT_BODY_LIMIT }),
  handlerTimeoutMs: integer({ min: 0, max: MAX_TIMER_MS, unit: 'milliseconds; 0 never', default: DEFAULT_HANDLER_TIMEOUT_MS }),
  clientRequestTimeoutMs: integer({ min: 1, max: MAX_TIMER_MS, unit: 'milliseconds', default: DEFAULT_CLIENT_REQUEST_TIMEOUT_MS }),
  maxStreamBufferBytes: integer({ min: MIN_STREAM_BUFFER_BYTES, unit: 'bytes', default: DEFAULT_MAX_STREAM_BUFFER_BYTES }),
  maxArgumentValues: integer({ min: 1, unit: 'values', default: DEFAULT_MAX_ARGUMENT_VALUES }),
  listPageSize: integer({ min: 1, max: MAX_LIST_PAGE_SIZE, unit: 'items per page' }),
  listen: group({
    maxStreams: integer({ min: 1, default: DEFAULT_MAX_STREAMS }),
    maxStreamsPerCaller: integer({ min: 1, default: DEFAULT_MAX_STREAMS_PER_CALLER }),
    keepAliveMs: integer({ min: 0, max: MAX_TIMER_MS, unit: 'milliseconds; 0 sends none', default: DEFAULT_KEEP_ALIVE_MS })
  })
})

const VALIDATE = group({
  results: boolean({ default: false }),
  paramHeaders: oneOf(PARAM_HEADER_MODES, { default: DEFAULT_PARAM_HEADER_MODE })
})

/** On by default (it costs nothing until a provider is registered); providers given here replace the global ones. */
const TELEMETRY = toggle(map(group({
  tracerProvider: withMethods<NonNullable<TelemetryOptions['tracerProvider']>>(['getTracer']),
  meterProvider: withMethods<NonNullable<TelemetryOptions['meterProvider']>>(['getMeter'])
}), (providers): TelemetryOptions => Object.freeze(given(providers))), true)

/** The whole tree. Fastify's `register` reads `prefix`, `logLevel` and `logSerializers` from the same object. */
const OPTIONS = group({
  server: SERVER,
  serverInfo: SERVER_INFO,
  era: ERA,
  path: string({ default: DEFAULT_PATH, expects: 'a string starting with "/"' }),
  instructions: string({}),
  security: group({
    allowedOrigins: allowList((origin, at) => {
      if (!URL.canParse(origin)) at.error(`"${origin}" is not an origin such as https://app.example.com`)
      return new URL(origin).origin
    }),
    allowedHosts: allowList((host) => host.toLowerCase()),
    toolErrors: oneOf(TOOL_ERROR_MODES, { default: DEFAULT_TOOL_ERROR_MODE })
  }),
  authorization: maybe(AUTHORIZATION),
  tasks: TASKS,
  sessions: SESSIONS,
  scale: SCALE,
  requestState: REQUEST_STATE,
  cacheHints: group({ discover: CACHE_HINT, results: CACHE_HINT }),
  limits: LIMITS,
  validate: VALIDATE,
  routes: ROUTES_OPTION,
  telemetry: TELEMETRY
}, {
  ignore: ['prefix', 'logLevel', 'logSerializers'],
  finish: (options, at) => {
    if (!options.path.startsWith('/')) at.key('path').error('expected a string starting with "/"')
    const { scale, requestState } = options
    // A part given here is shared by instances, unless it is one of the in-memory defaults; instances must then share the secret too.
    if (requestState.secret === undefined) {
      const shared = scale.eventBus !== undefined && !(scale.eventBus instanceof MemoryEventBus)
        ? 'event bus'
        : scale.answerRouter !== undefined && !(scale.answerRouter instanceof MemoryAnswerRouter)
          ? 'answer router'
          : scale.taskStore !== undefined && options.tasks !== undefined
            ? 'task store'
            : scale.catalogStore !== undefined && !(scale.catalogStore instanceof MemoryCatalogStore)
              ? 'catalogue store'
              : scale.sessionStore !== undefined && !(scale.sessionStore instanceof MemorySessionStore) ? 'session store' : undefined
      if (shared !== undefined) throw new FST_MCP_REQUEST_STATE_SECRET_REQUIRED(shared)
    }
    return {
      ...options,
      requestState: { secret: requestState.secret ?? Object.freeze([randomBytes(MIN_REQUEST_STATE_SECRET_BYTES)]), ttlMs: requestState.ttlMs }
    }
  }
})

/** The checked options with every default filled in, in the same tree as given. */
export type ResolvedOptions = SpecValue<typeof OPTIONS>

/** Validates and normalises the options; throws a coded error naming the path of the first bad one. */
export function resolveOptions (options: unknown): ResolvedOptions {
  return check(OPTIONS, options, '', (path, message) => new FST_MCP_INVALID_OPTION(path === '' ? 'options' : path, message))
}
