/**
 * The type of `fastify.mcp`, what the plugin exposes on the Fastify
 * instance (made by decorator.ts). Public, so it names only public types:
 * nothing here may reach the endpoint's internals, whose declarations name
 * optional peers (`@opentelemetry/api`).
 */
import type { ProtectedResourceMetadata } from '../auth/protected-resource-metadata.js'
import type { LivePrompts, LiveResources, LiveSkills, LiveTools } from '../definitions/live.js'
import type { NamedChanges } from '../definitions/shared-catalog.js'
import type { McpHookName, McpHooks } from '../hooks/types.js'
import type { DeploymentEra, ServerInfo } from '../options.js'
import type { LegacyServerCapabilities, ModernServerCapabilities } from '../server-module/capabilities.js'

/** What the plugin exposes on the Fastify instance as `fastify.mcp`. */
export interface McpDecorator {
  /** The frozen capability objects the endpoint advertises, per era. */
  readonly capabilities: {
    readonly legacy: LegacyServerCapabilities
    readonly modern: ModernServerCapabilities
  }
  readonly serverInfo: Readonly<ServerInfo>
  readonly era: DeploymentEra
  readonly path: string
  /**
   * The longest request body the endpoint reads, in bytes (`limits.bodyLimit`);
   * `serveStdio` reads lines up to this length by default.
   */
  readonly bodyLimit: number
  /**
   * Sends `notifications/tools/list_changed` on every open `subscriptions/listen`
   * stream that asked for it, on every instance sharing the event bus; returns
   * how many of this instance's streams it was written to at once (0 when
   * nobody listens here, or with a bus that delivers its own events later:
   * see `EventBus.publish`). A failure to reach the other instances is logged.
   */
  notifyToolsChanged (): number
  /** Same for `notifications/prompts/list_changed`. */
  notifyPromptsChanged (): number
  /** Same for `notifications/resources/list_changed`. */
  notifyResourcesChanged (): number
  /** Sends `notifications/resources/updated` for `uri` on every stream subscribed to exactly that URI. */
  notifyResourceUpdated (uri: string): number
  /**
   * The tools defined with `defineTools` (or `defineTool`), changed while the
   * server runs: `add`, `update`, `remove`, `disable`, `enable` by name
   * (see lib/definitions/live.ts for how changes reach other instances).
   */
  readonly tools: LiveTools
  readonly prompts: LivePrompts
  readonly resources: LiveResources
  /**
   * Adds and updates on every instance: define the code under a name on each
   * instance before ready, then `apply(name)` on any one (see
   * lib/definitions/shared-catalog.ts and docs/several-instances.md).
   */
  readonly changes: NamedChanges
  /** The skills defined with `defineSkills`, changed while the server runs (by skill path). */
  readonly skills: LiveSkills
  /** How many `subscriptions/listen` streams are open. */
  readonly listenStreams: number
  /**
   * Adds a hook around MCP operations (docs/routes-and-hooks.md): `onRequest`,
   * `preHandler`, `onResult`, `onError`. Hooks added in the context the plugin
   * was registered in (or by an fp-wrapped plugin) apply to every MCP request;
   * hooks added in a child context apply to the route-backed tools declared
   * there. Hooks are fixed once the app is ready.
   */
  addHook<N extends McpHookName> (name: N, hook: McpHooks[N]): void
  /** With the `authorization` option: the metadata document, its URL, and a way to forget remembered tokens. */
  readonly authorization: {
    readonly resource: string
    readonly metadata: Readonly<ProtectedResourceMetadata>
    readonly metadataUrl: string
    clearTokenCache (): void
  } | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    mcp: McpDecorator
  }
}
