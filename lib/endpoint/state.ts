/**
 * The endpoint's live state, in one object: what is computed once at
 * registration (the capability objects of both eras, which eras are served,
 * the result check) and what lives as long as the endpoint (shared parts,
 * open listen streams, the tasks service, legacy requests waiting for a
 * client's answer, the legacy log level, handlers still running). Opened
 * at registration, closed once with the app.
 */
import { buildCapabilities, type LegacyServerCapabilities, type ModernServerCapabilities } from '../server-module/capabilities.js'
import type { ResolvedOptions } from '../options.js'
import { createResultCheck, type ResultCheck } from '../handler/result-validation.js'
import type { FastifyBaseLogger } from 'fastify'
import type { ListFilter } from '../handler/invoke.js'
import { InFlight } from '../handler/in-flight.js'
import { FST_MCP_INVALID_OPTION } from '../errors.js'
import { PendingRequests } from '../input/pending-requests.js'
import type { McpEvent } from '../parts/event-bus.js'
import { SharedParts } from '../parts/lifecycle.js'
import { SubscriptionRegistry } from '../streams/subscriptions.js'
import type { TaskService } from '../tasks/service.js'
import { LegacyLogLevel } from './legacy-log-level.js'
import { LegacySessions } from './legacy-sessions.js'
import { MemorySessionStore } from '../parts/session-store.js'
import type { AnyServerModule } from '../server-module/contract.js'
import { Operations } from './operations.js'
import type { Composition } from '../definitions/compose.js'
import { type NamedChanges, SharedCatalog } from '../definitions/shared-catalog.js'
import { createLiveCatalogs, type LiveCatalogs } from '../definitions/live.js'
import { SettledNotices } from '../definitions/settled-notices.js'

export interface EndpointState {
  readonly options: ResolvedOptions
  readonly serveLegacy: boolean
  readonly serveModern: boolean
  readonly capabilities: {
    readonly legacy: LegacyServerCapabilities
    readonly modern: ModernServerCapabilities
  }
  /** Present with `validate.results`: checks handler results against their wire schemas. */
  readonly resultCheck: ResultCheck | undefined
  /** Narrows a list outcome for this request: authorization's steps (`filterLists`, skill manifests), then the MCP Apps view. */
  readonly filterList: ListFilter | undefined
  /** Handlers still running: timed out after `limits.handlerTimeoutMs`, stopped and answered on close. */
  readonly inFlight: InFlight
  /** The event bus and the answer router (given, or in this process's memory). */
  readonly parts: SharedParts
  /** Legacy server-to-client requests awaiting the client's POSTed answer. */
  readonly pending: PendingRequests
  /** This instance's open `subscriptions/listen` streams. */
  readonly subscriptions: SubscriptionRegistry
  /** Legacy `Mcp-Session-Id` sessions, with `sessions`. */
  readonly sessions: LegacySessions | undefined
  /** The tasks extension, with `tasks: true`. */
  readonly tasks: TaskService | undefined
  readonly legacyLogLevel: LegacyLogLevel
  /** What runs around operations (hooks, telemetry), handed over by the ready sequence (lib/plugin.ts); the eras call handlers through it. */
  readonly operations: Operations
  /** `fastify.mcp.tools`, `prompts`, `resources`: defined items changed while the server runs, on every instance. */
  readonly live: LiveCatalogs
  /** `fastify.mcp.changes`: add and update on every instance, by name. */
  readonly changes: NamedChanges
  /** At ready, before the first request: applies the catalogue changes recorded by other instances. */
  catchUp (): Promise<void>
  /** The catalogues of the defined tools, prompts and resources: what the endpoint reads of an item is its entry. */
  readonly composition: Composition
  /**
   * Publishes `event` on the bus; returns how many of this instance's streams
   * it reached at once (the bus delivers locally inside `publish`, see
   * lib/parts/event-bus.ts). A failure to reach the other instances is logged.
   */
  notify (event: McpEvent): number
  /** Ends streams, waits, handlers and tasks, then closes the shared parts; idempotent. */
  close (): Promise<void>
}

/** Builds and opens the endpoint's state; throws (having closed what it opened) when a part cannot be made or reached. */
export async function openEndpointState (options: ResolvedOptions, composition: Composition, log: FastifyBaseLogger, filterList?: ListFilter): Promise<EndpointState> {
  // The tasks machinery, loaded with `tasks` only (lib/tasks/service.ts: a chunk of its own in the build, which importing the package skips).
  const Tasks = options.tasks === undefined ? undefined : (await import('../tasks/service.js')).TaskService
  // Both shapes are built (and checked) whatever the era, so a module that
  // could not be served in one era fails registration rather than a request.
  const legacy = buildCapabilities(options.server, { era: 'legacy', sessions: options.sessions !== undefined }) as LegacyServerCapabilities
  const modern = buildCapabilities(options.server, { era: 'modern', tasks: options.tasks !== undefined }) as ModernServerCapabilities
  const parts = new SharedParts({ eventBus: options.scale.eventBus, answerRouter: options.scale.answerRouter, catalogStore: options.scale.catalogStore })
  const pending = new PendingRequests(options.limits.clientRequestTimeoutMs, () => parts.router.requestId())
  const subscriptions = new SubscriptionRegistry({
    serverInfo: options.serverInfo,
    listen: options.limits.listen,
    maxStreamBufferBytes: options.limits.maxStreamBufferBytes
  })
  const sessionStore = options.sessions === undefined ? undefined : options.scale.sessionStore ?? new MemorySessionStore()
  const sessions = options.sessions === undefined || sessionStore === undefined ? undefined : new LegacySessions(sessionStore, options.sessions, parts.bus, subscriptions)
  const legacyLogLevel = new LegacyLogLevel((event) => parts.bus.publish(event).then(() => {}), undefined, sessions)
  // With sessions, the endpoint answers resources/subscribe per session when the module has no handler of its own.
  const server: AnyServerModule = sessions === undefined || typeof (options.server as { subscribeResource?: unknown }).subscribeResource === 'function'
    ? options.server
    : Object.assign(Object.create(options.server) as AnyServerModule, {
      subscribeResource: (params: { uri?: unknown }, ctx: { request: import('fastify').FastifyRequest }) => sessions.subscribe(ctx.request, params.uri, true),
      unsubscribeResource: (params: { uri?: unknown }, ctx: { request: import('fastify').FastifyRequest }) => sessions.subscribe(ctx.request, params.uri, false)
    })
  // Runtime definition changes: served from the next request, told to the streams;
  // remove/disable/enable and named changes recorded in the catalogue store and confirmed by every other instance on the bus.
  // A shared change's notices wait until it settled everywhere; an endpoint alone (its own in-memory bus) tells at once.
  const notices = new SettledNotices({
    listChanged: (list) => subscriptions.notifyListChanged(list),
    resourceUpdated: (uri) => subscriptions.notifyResourceUpdated(uri)
  }, { holds: parts.sharedBus })
  const changes = new SharedCatalog(parts.catalog, parts.bus, notices)
  const live = createLiveCatalogs(composition, {
    share: (list, name, change, applyHere) => changes.share(list, name, change, applyHere).catch((err: unknown) => {
      log.error({ err, list, name, change }, 'MCP definition change not shared with every instance')
      throw err
    }),
    listChanged: (list) => notices.listChanged(list),
    resourceUpdated: (uri) => notices.resourceUpdated(uri)
  })
  changes.attach(live)
  // This instance's streams hear every event the bus delivers; filtering and subscriptionId stay here.
  try {
    await parts.open((event) => {
      switch (event.type) {
        case 'listChanged':
          subscriptions.notifyListChanged(event.list)
          break
        case 'resourceUpdated':
          subscriptions.notifyResourceUpdated(event.uri)
          break
        case 'taskStatus':
          subscriptions.notifyTaskStatus(event.owner, event.task)
          break
        case 'definitionChanged':
        case 'namedChange':
        // Confirmed whether or not it changed anything here: this instance no longer serves what it removed or hid.
          changes.heard(event)
          break
        case 'definitionApplied':
          changes.confirmed(event)
          break
        case 'changeSettled':
          changes.settled(event)
          break
        case 'logLevel':
          legacyLogLevel.heard(event)
          break
        case 'sessionChanged':
        case 'sessionEnded':
          sessions?.heard(event)
          break
      }
    }, (answer, caller) => pending.settle(answer, caller), () => {
      // Events may have been lost while the bus was cut off: the catalogue catches up, every stream re-reads what it follows.
      changes.catchUp(log).catch((err: unknown) => log.error({ err }, 'MCP catalogue changes could not be re-read after the event bus came back'))
      const sent = subscriptions.notifyAllMayHaveChanged()
      log.info({ notifications: sent }, 'MCP event bus reconnected: listen streams told that lists and resources may have changed')
    })
  } catch (err) {
    changes.close()
    throw err
  }

  // The tasks extension: records in the configured store (default: per endpoint, in memory), work in this process.
  let tasks: TaskService | undefined
  if (Tasks !== undefined && options.tasks !== undefined) {
    try {
      tasks = new Tasks({ ...options.tasks, store: options.scale.taskStore, bus: parts.bus, log, toolErrors: options.security.toolErrors })
    } catch (err) {
      changes.close()
      await parts.close()
      throw new FST_MCP_INVALID_OPTION('scale.taskStore', `the store could not be made: ${err instanceof Error ? err.message : String(err)}`)
    }
  }
  const inFlight = new InFlight(options.limits.handlerTimeoutMs)

  const resultCheck = options.validate.results ? createResultCheck() : undefined
  let closed: Promise<void> | undefined
  return Object.freeze({
    options,
    serveLegacy: options.era !== 'modern',
    serveModern: options.era !== 'legacy',
    capabilities: Object.freeze({ legacy, modern }),
    resultCheck,
    filterList,
    inFlight,
    parts,
    pending,
    subscriptions,
    sessions,
    tasks,
    legacyLogLevel,
    operations: new Operations({ server, check: resultCheck, toolErrors: options.security.toolErrors, handlerTimeoutMs: options.limits.handlerTimeoutMs, validatesArguments: composition.validatesArguments }),
    live,
    changes: changes.changes,
    async catchUp (): Promise<void> {
      const applied = await changes.catchUp(log)
      if (applied > 0) log.info({ changes: applied }, 'MCP catalogue changes recorded by other instances applied')
    },
    composition,
    notify (event: McpEvent): number {
      const before = subscriptions.delivered
      parts.bus.publish(event).catch((err: unknown) => {
        log.error({ err, event: event.type }, 'MCP notification not delivered to every instance (event bus)')
      })
      return subscriptions.delivered - before
    },
    close (): Promise<void> {
      closed ??= (async () => {
        subscriptions.close()
        // Questions waiting for a legacy client fail, then every pending handler is stopped (answered at once).
        pending.close()
        await inFlight.close()
        await tasks?.close()
        changes.close()
        await parts.close()
        await sessionStore?.close()
      })()
      return closed
    }
  })
}
