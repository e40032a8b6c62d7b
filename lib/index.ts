/** The public surface of fastify-mcp-capabilities. */
import { mcpCapabilities } from './plugin.js'

export { mcpCapabilities }
export default mcpCapabilities
export type { McpCapabilitiesOptions, McpDecorator } from './plugin.js'
export type { ServerInfo, CacheScope, CacheHintOptions, DeploymentEra, PerRequest } from './options.js'

export { buildCapabilities, TASKS_EXTENSION } from './capabilities.js'
export type { BuildCapabilitiesOptions, BuiltCapabilities, LegacyServerCapabilities, ModernServerCapabilities } from './capabilities.js'
export { McpError, ErrorCode } from './mcp-error.js'
export { inputRequired, InputRequiredSignal } from './client-requests.js'
export type {
  ClientRequestOptions,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  InputRequest,
  InputRequiredResult,
  ListRootsResult,
  Root,
  SamplingMessage
} from './client-requests.js'
export type { Era, HandlerName } from './methods.js'
export type { ServerModule, Handler, HandlerContext, CapabilitiesDeclaration, ClientInfo } from './server-module.js'
export { MODERN_VERSIONS, LEGACY_VERSIONS } from './versions.js'
export { LOG_LEVELS } from './log-level.js'
export type { LogLevel } from './log-level.js'
export type { SubscriptionFilter } from './subscriptions.js'
export type { ParamHeaderMode } from './param-headers.js'
export { canRunAsTask, runAsTask } from './tasks.js'
export type { RunAsTaskOptions, TaskOwner } from './tasks.js'
export type { TaskOptions } from './options.js'
export * as errors from './errors.js'
export * as schemas from './schemas.js'
export { parseDiscoverResult, parseImplementation } from './discover-result.js'
export type { ParsedDiscoverResult, DiscoverResultParse, DiscoverResultError, ServerIcon } from './discover-result.js'
