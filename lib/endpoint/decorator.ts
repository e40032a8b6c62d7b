/**
 * `fastify.mcp`: one frozen object over the endpoint's live state. Its
 * `addHook` is given per context (lib/hooks/hooked-decorator.ts).
 */
import type { McpEvent } from '../parts/event-bus.js'
import type { EndpointAuthorization } from './authorization.js'
import type { McpDecorator } from './mcp-decorator.js'
import type { EndpointState } from './state.js'

const TOOLS_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'tools' })
const PROMPTS_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'prompts' })
const RESOURCES_CHANGED: McpEvent = Object.freeze({ type: 'listChanged', list: 'resources' })

/** The decorator of an endpoint served at `path` (its prefix included); `addHook` is each context's own. */
export function createDecorator (state: EndpointState, path: string, auth: EndpointAuthorization | undefined): McpDecorator {
  const { options, subscriptions } = state
  return Object.freeze({
    capabilities: state.capabilities,
    serverInfo: options.serverInfo,
    era: options.era,
    path,
    bodyLimit: options.limits.bodyLimit,
    notifyToolsChanged: () => state.notify(TOOLS_CHANGED),
    notifyPromptsChanged: () => state.notify(PROMPTS_CHANGED),
    notifyResourcesChanged: () => state.notify(RESOURCES_CHANGED),
    notifyResourceUpdated: (uri: string) => {
      if (typeof uri !== 'string') throw new TypeError('notifyResourceUpdated(uri): uri must be a string')
      return state.notify({ type: 'resourceUpdated', uri })
    },
    tools: state.live.tools,
    prompts: state.live.prompts,
    resources: state.live.resources,
    changes: state.changes,
    skills: state.live.skills,
    get listenStreams () {
      return subscriptions.size
    },
    addHook (): void {
      throw new TypeError('fastify.mcp.addHook is called on fastify.mcp of a Fastify instance')
    },
    authorization: auth === undefined
      ? undefined
      : Object.freeze({
        resource: auth.resourceServer.settings.resource,
        metadata: auth.resourceServer.metadata,
        metadataUrl: auth.resourceServer.metadataUrl,
        clearTokenCache: () => auth.resourceServer.clearCache()
      })
  })
}
